"""Cost normalization (§5.2): shrink cycle counts while keeping their ratios.

Scaling every cycle count by the same factor yields an isomorphic scheduling
problem, but solver time grows with the counts.  Given counts ``C`` we pick
integers ``C'`` minimising the ratio distortion ``F`` with
``|C[i]*C'[j] - C[j]*C'[i]| <= F`` for all pairs and ``1 <= sum(C') <= U``.

One addition to §5.2: a count of at least 1/64 of the largest keeps a duration of at
least 1 (``SIGNIFICANT``).  F is an absolute distortion, so where the counts have no small
exact lattice (64-, 96- and 88-cycle ops beside 1-cycle scalars) its minimum is a nearly
all-zero map: a 176-key attention model had every op below 704 cycles, its softmax
included, mapped to 0 and its II to 4.
"""

from __future__ import annotations

import math

from .bounds import MAX_NORMALIZE_BOUND, MAX_NORMALIZE_VALUES
from .graph import Edge, Graph, Op
from .solvers import SolverTimeout, make_backend

SIGNIFICANT = 64  # a count of at least max / SIGNIFICANT keeps a normalized duration >= 1


def proportional_costs(costs: list[int], bound: int) -> list[int]:
    """Every count scaled by one factor so that they sum to at most U (rounded,
    at least 1 where U allows): the fallback when the §5.2 program is too large
    or out of time.  Counts that already fit are kept."""
    total = sum(costs)
    if total <= bound:
        return list(costs)
    new = [max(1, round(c * bound / total)) for c in costs]
    while sum(new) > bound:  # rounding (and the floor of 1) may overshoot U
        i = max(range(len(new)), key=lambda j: new[j])
        if new[i] == 0:
            break
        new[i] -= 1
    return new


def normalize_costs(costs: list[int], bound: int, solver: str = "cpsat", time_limit: float = 10.0) -> list[int]:
    """The integer program of §5.2 over the given positive cycle counts
    (:func:`proportional_costs` beyond :data:`~.bounds.MAX_NORMALIZE_VALUES`
    distinct counts, or when ``time_limit`` runs out first)."""
    if not costs:
        return []
    if any(c <= 0 for c in costs):
        raise ValueError("cycle counts to normalize must be positive")
    if not 1 <= bound <= MAX_NORMALIZE_BOUND:
        raise ValueError(f"the normalization bound U must be between 1 and {MAX_NORMALIZE_BOUND}, got {bound}")
    if len(costs) > MAX_NORMALIZE_VALUES:
        return proportional_costs(costs, bound)
    try:
        return _normalize_program(costs, bound, solver, time_limit)
    except SolverTimeout:
        return proportional_costs(costs, bound)


def _normalize_program(costs: list[int], bound: int, solver: str, time_limit: float) -> list[int]:
    import time

    deadline = time.monotonic() + time_limit
    b = make_backend(solver, deadline)
    cmax = max(costs)
    new = [b.int(0, bound, f"c{i}") for i in range(len(costs))]
    fmax = cmax * bound
    f = b.int(0, fmax, "F")
    for i in range(len(costs)):
        for j in range(i + 1, len(costs)):
            # -F <= C[i]*C'[j] - C[j]*C'[i] <= F
            b.add([(costs[i], new[j]), (-costs[j], new[i]), (-1, f)], hi=0)
            b.add([(costs[i], new[j]), (-costs[j], new[i]), (1, f)], lo=0)
    b.add([(1, x) for x in new], lo=1, hi=bound)
    for c, x in zip(costs, new):
        if c * SIGNIFICANT >= cmax:
            b.add([(1, x)], lo=1)
    b.minimize([(1, f)])
    if not b.solve(max(0.001, deadline - time.monotonic())):  # pragma: no cover - always feasible (all ones, or one 1)
        raise RuntimeError("cost normalization is infeasible")
    return [b.value(x) for x in new]


def _rescale_row(row: list[int], new_len: int) -> list[int]:
    n = len(row)
    if new_len == 0 or n == 0:
        return []
    out = []
    for c in range(new_len):
        lo = (c * n) // new_len
        hi = max(lo + 1, math.ceil((c + 1) * n / new_len))
        out.append(max(row[lo:hi]))
    return out


def normalize_graph(graph: Graph, bound: int = 300, solver: str = "cpsat", time_limit: float = 10.0) -> Graph:
    """Rescale every duration in the graph (reservation lengths, latencies, edge
    delays, spill costs) through one normalized cost map over its distinct values."""
    return normalize_graphs([graph], bound, solver, time_limit)[0]


def normalize_graphs(graphs: list[Graph], bound: int = 300, solver: str = "cpsat",
                     time_limit: float = 10.0) -> list[Graph]:
    """Normalize several graphs of one loop (alternative warp organisations)
    through one cost map over all their distinct durations, so that their IIs
    are in the same unit and can be compared."""
    values: set[int] = set()
    for graph in graphs:
        for op in graph.ops:
            values.update(len(r) for r in op.uses.values())
            if op.latency is not None:
                values.add(op.latency)
            values.add(op.spill_cost)
        values.update(e.delay for e in graph.edges)
    distinct = sorted(v for v in values if v > 0)
    mapping = {0: 0, **dict(zip(distinct, normalize_costs(distinct, bound, solver, time_limit)))}
    return [_rescaled(graph, mapping) for graph in graphs]


def _rescaled(graph: Graph, mapping: dict[int, int]) -> Graph:
    ops = []
    for op in graph.ops:
        uses = {u: _rescale_row(r, mapping[len(r)]) for u, r in op.uses.items()}
        ops.append(Op(name=op.name, uses={u: r for u, r in uses.items() if r},
                      latency=None if op.latency is None else mapping[op.latency],
                      regs=op.regs, smem=op.smem, variable_latency=op.variable_latency,
                      spill_cost=mapping[op.spill_cost], kind=op.kind, tmem=op.tmem,
                      single_thread=op.single_thread))
    edges = [Edge(e.src, e.dst, mapping[e.delay], e.distance, e.blocking) for e in graph.edges]
    return Graph(units=dict(graph.units), ops=ops, edges=edges, warps=graph.warps,
                 smem_capacity=graph.smem_capacity, streaming_depth=graph.streaming_depth, name=graph.name,
                 tmem_capacity=graph.tmem_capacity)
