"""Optimal modulo scheduling as an integer program.

For an initiation interval II, every op ``v`` gets a start ``s_v = r_v + II*k_v``
(residue ``r_v`` one-hot over ``[0, II)``, stage ``k_v``); dependences are
``s_dst + distance*II >= s_src + delay`` and each unit's use, folded modulo II
(the modular reservation table), stays within its capacity.  The smallest
feasible II is searched upward from ``max(ResMII, RecMII)``; at that II the
schedule length is minimised (ties broken towards issuing ops late).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .bounds import Deadline, check_model_size
from .graph import Edge, Graph, GraphError, Op, components
from .solvers import FAST_WORK, Backend, make_backend


# --------------------------------------------------------------------------
# Lower bounds on II


def res_mii(graph: Graph) -> int:
    """Resource-constrained lower bound: each unit's total use over its capacity
    (every member of a ping-pong team uses the units)."""
    best = 1
    for unit, cap in graph.units.items():
        total = sum(graph.replicas(op.name) * sum(op.uses.get(unit, ())) for op in graph.ops)
        best = max(best, math.ceil(total / cap))
    return best


def _has_positive_cycle(n: int, edges: list[tuple[int, int, int, int]], ii: int,
                        deadline: Deadline | None = None) -> bool:
    """Bellman-Ford (longest paths) on edge weights ``delay - distance*ii``."""
    dist = [0] * n
    weighted = [(a, b, d - k * ii) for a, b, d, k in edges]
    for _ in range(n):
        if deadline is not None:
            deadline.left()
        changed = False
        for a, b, w in weighted:
            if dist[a] + w > dist[b]:
                dist[b] = dist[a] + w
                changed = True
        if not changed:
            return False
    return True


def rec_mii(graph: Graph, deadline: Deadline | None = None) -> int:
    """Recurrence-constrained lower bound: the least II with no dependence cycle
    whose delays exceed ``II`` times its iteration distance.  Only edges inside
    a strongly connected component can lie on a cycle, so only those are
    searched (a long acyclic graph costs nothing)."""
    comp = components(graph, graph.edges)
    edges = [(graph.index[e.src], graph.index[e.dst], e.delay, e.distance) for e in graph.edges
             if comp[graph.index[e.src]] == comp[graph.index[e.dst]]]
    n = len(graph.ops)
    hi = sum(d for _, _, d, _ in edges) + 1
    if _has_positive_cycle(n, edges, hi, deadline):
        raise GraphError("a dependence cycle has iteration distance 0 and positive delay; no schedule exists")
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _has_positive_cycle(n, edges, mid, deadline):
            lo = mid + 1
        else:
            hi = mid
    return lo


def min_ii(graph: Graph, deadline: Deadline | None = None) -> int:
    return max(res_mii(graph), rec_mii(graph, deadline))


# --------------------------------------------------------------------------
# The model shared with the joint problem


def streaming_view(graph: Graph) -> Graph:
    """§5.3: streaming variable-latency ops (no incoming edge) get zero latency;
    the delays of their outgoing edges become zero.  Their reservation tables
    are kept, so the unit they use still bounds the throughput."""
    streaming = {op.name for op in graph.ops if graph.is_streaming(op.name)}
    if not streaming:
        return graph
    ops = [Op(**{**op.__dict__, "latency": 0}) if op.name in streaming else op for op in graph.ops]
    edges = [Edge(e.src, e.dst, 0 if e.src in streaming else e.delay, e.distance, e.blocking) for e in graph.edges]
    return Graph(units=graph.units, ops=ops, edges=edges, warps=graph.warps, smem_capacity=graph.smem_capacity,
                 streaming_depth=graph.streaming_depth, name=graph.name, tmem_capacity=graph.tmem_capacity)


def critical_length(graph: Graph, ii: int, deadline: Deadline | None = None) -> int:
    """A lower bound on the length of any modulo schedule at this II: the
    longest path (edge weights ``delay - distance*II``, starts >= 0) plus the
    op's own cycles.  Assumes ``ii >= rec_mii`` (no positive cycle)."""
    n = len(graph.ops)
    dist = {op.name: 0 for op in graph.ops}
    for _ in range(n):
        if deadline is not None:
            deadline.left()
        changed = False
        for e in graph.edges:
            w = dist[e.src] + e.delay - e.distance * ii
            if w > dist[e.dst]:
                dist[e.dst] = w
                changed = True
        if not changed:
            break
    return max(dist[op.name] + op.cycles for op in graph.ops)


def _longest_paths(graph: Graph, ii: int):
    """warp_bound's (head, tail) at this II, or None (a positive cycle: no schedule)."""
    from .warp_bound import _paths

    return _paths(graph, ii)


def horizon_stages(graph: Graph, ii: int) -> int:
    """An upper bound on the stage of any op in some valid schedule, if one exists
    at this II: the longest path in the stage-difference system has at most
    ``ceil(delay/II) + 1`` per edge, plus room for the longest op."""
    return sum(math.ceil(e.delay / ii) + 1 for e in graph.edges) + 1


class ModuloModel:
    """Residue/stage variables, dependence and modular capacity constraints for one II.

    ``length`` fixes the schedule length L (every op completes by cycle L);
    ``None`` makes L a variable bounded by a horizon that cannot exclude a
    valid schedule."""

    def __init__(self, graph: Graph, ii: int, backend: Backend, length: int | None = None,
                 max_length: int | None = None, windows: bool = False):
        check_model_size(graph, ii)
        self.graph, self.ii, self.b, self.length = graph, ii, backend, length
        b = backend
        if length is None:
            kmax = horizon_stages(graph, ii)
            lmax = (kmax + 1) * ii + max(op.cycles for op in graph.ops)
            if max_length is not None and max_length < lmax:
                # Only schedules of length <= max_length are wanted: every stage
                # domain shrinks to what such a schedule can use.
                lmax = max_length
                kmax = max(0, min(kmax, lmax // ii))
            self.length_var = b.int(min(critical_length(graph, ii), lmax), lmax, "L")
        else:
            self.length_var = None
        self.rho: dict[str, list] = {}
        self.k: dict[str, object] = {}
        self.feasible_bounds = True
        # With a fixed length: the variables and constraints whose bounds depend
        # on it, as (handle, bounds(L)), so that retarget() can move the model to
        # another length without building it again.
        self._by_length: list[tuple[object, object]] = []
        # ``windows``: each start lies between its longest incoming path from cycle 0 and the
        # length less its longest path to completion (warp_bound's paths), tighter than
        # completion alone.  With a variable length the model has them from the start; with a
        # fixed one it is built without them and tighten() puts them on (the joint model's
        # proofs, not the fast runs, whose answers stand as they were).
        paths = _longest_paths(graph, ii) if windows else None
        self._windows: dict[str, tuple[int, int, object]] = {}
        self._pinned: dict[str, int] | None = None  # starts pinned by their domains (JointModel.fix_starts)
        for op in graph.ops:
            v = op.name
            self.rho[v] = [b.bool(f"r_{v}_{r}") for r in range(ii)]
            b.exactly_one(self.rho[v])
            head, tail = (paths[0][v], max(paths[1][v], op.cycles)) if paths is not None else (0, op.cycles)
            if length is None:
                hi = min(kmax, max(0, (lmax - op.cycles) // ii))
            else:
                hi = self._stage_bound(op.cycles, length)
            # (a variable length: the windows from the start, bounds on s_v and L - s_v)
            lo = head // ii if length is None else 0
            self.k[v] = b.int(lo, max(lo, hi), f"k_{v}")
            # Completion: s_v + cycles(v) <= L.
            if length is None:
                b.add(self.start(v) + [(-1, self.length_var)], hi=-tail)
                if head:
                    b.add(self.start(v), lo=head)
            else:
                ct = b.add(self.start(v), hi=length - op.cycles)
                self._by_length += [(self.k[v], lambda L, c=op.cycles: (0, self._stage_bound(c, L))),
                                    (ct, lambda L, c=op.cycles: (None, L - c))]
                if paths is not None:
                    self._windows[v] = (paths[0][v], max(paths[1][v], op.cycles), ct)
        # Dependence: s_dst + distance*II >= s_src + delay.
        for e in graph.edges:
            terms = self.start(e.dst) + [(-c, x) for c, x in self.start(e.src)]
            b.add(terms, lo=e.delay - e.distance * ii)
        # Capacity of the modular reservation table; the members of a ping-pong
        # team reserve the units again at their offsets.
        for unit, cap in graph.units.items():
            per_res: list[list[tuple[int, object]]] = [[] for _ in range(ii)]
            for op in graph.ops:
                for c, amount in enumerate(op.uses.get(unit, ())):
                    if amount:
                        for shift in graph.member_offsets(op.name, ii):
                            for r in range(ii):
                                per_res[(r + c + shift) % ii].append((amount, self.rho[op.name][r]))
            for terms in per_res:
                # Merge the coefficients of repeated literals.
                merged: dict[int, list] = {}
                for amount, lit in terms:
                    key = id(lit)
                    if key in merged:
                        merged[key][0] += amount
                    else:
                        merged[key] = [amount, lit]
                if merged and sum(a for a, _ in merged.values()) > cap:
                    b.add([(a, l) for a, l in merged.values()], hi=cap)

    def tighten(self, on: bool) -> bool:
        """Put the start windows on (or off again: the model as built) at the current length;
        False when a window is empty (no schedule)."""
        fits = True
        for v, (head, tail, row) in self._windows.items():
            cycles = self.graph.op(v).cycles
            # (pinned starts keep their stage domains; the rows still tighten)
            if on:
                fits = fits and head + tail <= self.length
                lo = head // self.ii
                if self._pinned is None:
                    self.b.set_bounds(self.k[v], lo, max(lo, (self.length - tail) // self.ii))
                self.b.set_bounds(row, head, self.length - tail)
            else:
                if self._pinned is None:
                    self.b.set_bounds(self.k[v], 0, self._stage_bound(cycles, self.length))
                self.b.set_bounds(row, None, self.length - cycles)
        return fits

    def _stage_bound(self, cycles: int, length: int) -> int:
        """The largest stage of an op of ``cycles`` that completes by ``length``
        (0, and the model marked infeasible, when it cannot complete at all)."""
        if length < cycles:
            self.feasible_bounds = False
            return 0
        return (length - cycles) // self.ii

    def retarget(self, length: int) -> None:
        """Move a model built for one fixed length to ``length``: the same model
        as one built for it (a backend that can change bounds, CP-SAT), with no
        hints.  Building the joint model costs more than many of its solves."""
        assert self.length is not None and self.b.retargetable
        self.length = length
        self.feasible_bounds = True
        for handle, bounds in self._by_length:
            self.b.set_bounds(handle, *bounds(length))
        self.b.clear_hints()

    def start(self, v: str) -> list[tuple[int, object]]:
        """Linear terms of ``s_v``."""
        return [(r, self.rho[v][r]) for r in range(1, self.ii)] + [(self.ii, self.k[v])]

    def residue_value(self, v: str) -> int:
        return next(r for r in range(self.ii) if self.b.value(self.rho[v][r]))

    def start_value(self, v: str) -> int:
        return self.residue_value(v) + self.ii * self.b.value(self.k[v])


@dataclass
class ModuloSchedule:
    """A modulo schedule M: start cycle of each op within its iteration, for II."""

    ii: int
    starts: dict[str, int]
    length: int


def schedule_length(graph: Graph, starts: dict[str, int]) -> int:
    return max(starts[op.name] + op.cycles for op in graph.ops)


def modulo_schedule(graph: Graph, ii: int, solver: str = "cpsat", time_limit: float | Deadline = 60.0,
                    guess: int | None = None) -> ModuloSchedule | None:
    """``Optimal-Modulo-Schedule(G, II)``: the shortest valid modulo schedule at
    this II (ties: ops as late as possible), or None when none exists.

    Solved lexicographically in two small problems rather than one with a
    heavily weighted objective (same optimum, about half the time): first the
    least length L (:func:`least_length`), then, at that L (which also tightens
    every stage domain), the latest starts (:func:`latest_starts`).
    ``time_limit`` (seconds, or a :class:`Deadline` shared with the caller)
    bounds building and solving."""
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    found = least_length(graph, ii, solver, deadline, guess)
    if found is None:
        return None
    return latest_starts(graph, ii, found, solver, deadline)


def least_length(graph: Graph, ii: int, solver: str, deadline: Deadline,
                 guess: int | None = None, exact: bool = False) -> ModuloSchedule | None:
    """The least length of a modulo schedule at this II, with one schedule of
    that length; None when none exists.  ``guess`` (a length the caller expects
    to suffice, e.g. the previous II's) bounds the first search: if a schedule
    of length <= guess exists, the least one is also the least overall; only if
    none does is the search repeated over the full horizon.  The least L is
    bounded below by the critical path, so a schedule that reaches it is
    proven optimal at once.  ``exact``: only a schedule within ``guess`` is
    wanted (None when there is none), no search of the whole horizon."""

    found = _shortest_within(graph, ii, solver, deadline, guess) if guess is not None else None
    if found is not None or exact:  # exact: only schedules within guess are wanted
        return found
    return _shortest_within(graph, ii, solver, deadline, None)


def _shortest_within(graph: Graph, ii: int, solver: str, deadline: Deadline,
                     max_length: int | None) -> ModuloSchedule | None:
    """The least-length modulo schedule of length at most ``max_length`` (None:
    any), or None when there is none."""
    def build(windows: bool) -> ModuloModel:
        b = make_backend(solver, deadline.at, deadline.work)
        m = ModuloModel(graph, ii, b, max_length=max_length, windows=windows)
        b.minimize([(1, m.length_var)])
        return m

    m = _optimum(build, deadline)
    if m is None:
        return None
    return ModuloSchedule(ii, {op.name: m.start_value(op.name) for op in graph.ops}, m.b.value(m.length_var))


def _optimum(build, deadline: Deadline) -> ModuloModel | None:
    """An optimal solution of the model ``build(windows)`` makes (None: infeasible), through
    the model that found it.  The solver's standard run on the model without the start
    windows, first within FAST_WORK (what it settles there it settles without the limit too,
    so such answers are what they always were); then, on a model with the windows, CP-SAT's
    search alone within FAST_WORK (where the tensor core is full the LP bound is weak, and the
    search proves the optimum at once); only then the standard run without a limit."""
    m = build(False)
    settled = m.b.settle(deadline.left(), FAST_WORK)
    if settled is None and m.b.retargetable:  # (CP-SAT: z3 has no such runs)
        tight = build(True)
        settled = tight.b.settle(deadline.left(), FAST_WORK, lp=False)
        if settled is not None:
            return tight if settled else None
    if settled is None:
        settled = m.b.solve(deadline.left())
    return m if settled else None


def modulo_fits(graph: Graph, ii: int, length: int, solver: str, deadline: Deadline) -> bool:
    """Whether some modulo schedule at this II has length at most ``length``: a
    feasibility query with CP-SAT's LP relaxation (which settles it in hundredths
    of a second where the search alone can take seconds)."""
    m = ModuloModel(graph, ii, make_backend(solver, deadline.at, deadline.work), length)
    m.b.linear = True
    return m.feasible_bounds and m.b.solve(deadline.left())


def latest_starts(graph: Graph, ii: int, first: ModuloSchedule, solver: str,
                  deadline: Deadline) -> ModuloSchedule:
    """At ``first``'s length, the schedule with every op as late as possible
    (the tie-break that reproduces Fig. 1(d)); ``first`` guides the search."""
    length = first.length
    b = make_backend(solver, deadline.at, deadline.work)
    m = ModuloModel(graph, ii, b, length)
    objective = []
    for op in graph.ops:
        objective += [(-c, x) for c, x in m.start(op.name)]
        s = first.starts[op.name]
        b.hint(m.k[op.name], s // ii)
        for r in range(ii):
            b.hint(m.rho[op.name][r], int(r == s % ii))
    b.minimize(objective)
    if not b.solve(deadline.left()):  # pragma: no cover - L is feasible
        raise RuntimeError(f"no modulo schedule of length {length} at II {ii}, though one was found")
    starts = {op.name: m.start_value(op.name) for op in graph.ops}
    return ModuloSchedule(ii, starts, schedule_length(graph, starts))


def optimal_modulo_schedule(graph: Graph, solver: str = "cpsat", time_limit: float = 60.0) -> ModuloSchedule:
    """The modulo schedule with the smallest II, searched upward from the MII
    (bounded by ``time_limit`` and by the model size limit)."""
    deadline = Deadline(time_limit)
    ii = min_ii(graph, deadline)
    cap = ii + sum(max(op.cycles, op.length, 1) for op in graph.ops) + sum(e.delay for e in graph.edges)
    while ii <= cap:
        ms = modulo_schedule(graph, ii, solver, deadline)
        if ms is not None:
            return ms
        ii += 1
    raise GraphError(f"no modulo schedule found for II up to {cap}")
