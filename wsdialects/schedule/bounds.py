"""Bounds on the scheduler's time and memory, checked before any model is built.

The integer programs grow with the initiation interval II: every op has II
residue literals, the modular reservation table has II rows, and liveness and
the concurrency constraint of the joint problem grow with II².  A graph whose
delays are in the millions (an un-normalized cycle count, or a mistake) would
otherwise ask for a model of billions of terms and run out of memory before
any time limit is looked at.  :func:`check_model_size` estimates the number of
terms (literal occurrences in constraints) of the model at one II, with the
same loops the model builders run but without building anything, and refuses
a model above :data:`MAX_TERMS`, naming what makes it large:

    ws-schedule: at II = 1000000000 the scheduling model would have about
    3.0e10 terms, above the limit of 4000000: edge 'S' -> 'O' has delay
    1000000000; rescale the costs (--normalize U / the normalize option)

:class:`Deadline` is the one clock of a solve: the solver backends check it
while a model is being built and give each solve only the time that is left.
"""

from __future__ import annotations

import time

from .graph import Graph, GraphError

# About 1 to 2 s of model building in Python for CP-SAT (z3 is slower: its
# models are smaller in practice, but the same bound keeps memory in check).
# Attention at its optimal II (22) has about 1e5 terms.
MAX_TERMS = 4_000_000
# The longest reservation an op of a kernel may have, in machine-model cycles
# (a 2048x2048x2048 dot is 4.2e6 on h100; a tile that large cannot be one CTA's).
MAX_RESERVATION = 2**23
# §5.2's normalization takes the graph's distinct durations pairwise; past this
# many it would be a large program of its own, and proportional scaling is used.
MAX_NORMALIZE_VALUES = 64
# The normalization bound U (sum of the normalized costs): past this the models
# are as large as without normalizing.
MAX_NORMALIZE_BOUND = 100_000


class ModelTooLarge(GraphError):
    """The model at some II would exceed :data:`MAX_TERMS`."""


class Deadline:
    """A point in time a solve must finish by (``time.monotonic`` based), and
    optionally a cap on each solver call's work (``work``: CP-SAT's
    deterministic seconds, the same on every machine), past which that call
    stops with :class:`~.solvers.SolverTimeout`."""

    def __init__(self, seconds: float, work: float | None = None):
        self.limit = float(seconds)
        self.at = time.monotonic() + self.limit
        self.work = work

    def left(self) -> float:
        """Seconds left; raises :class:`~.solvers.SolverTimeout` when none are."""
        from .solvers import SolverTimeout

        rest = self.at - time.monotonic()
        if rest <= 0:
            raise SolverTimeout(f"no schedule within the time limit of {self.limit:g} s")
        return rest


def model_terms(graph: Graph, ii: int, warps: int = 1) -> int:
    """An estimate (from above, within a small factor) of the number of terms of
    the joint model at ``ii`` with ``warps`` warps (``warps = 1`` and no memory
    limits: about the modulo model)."""
    n = len(graph.ops)
    uses = sum(graph.replicas(op.name) for op in graph.ops for row in op.uses.values() for x in row if x)
    # residues, completion, dependences, modular reservation table
    terms = ii * (2 * n + 2 * len(graph.edges) + uses) + n * warps
    if warps > 1:
        terms += len(graph.edges) * (3 * warps + 2 * ii + 1)
    # concurrency: per guarded op, per other op and residue, a window of its cycles
    window = sum(ii * (min(op.cycles, ii) + 3) for op in graph.ops if 0 < op.cycles)
    guarded = {e.dst for e in graph.edges if e.blocking}
    if warps > 1:
        guarded |= {e.dst for e in graph.edges if graph.op(e.src).spill_cost > 0}
    terms += len(guarded) * window
    # liveness modulo II (II² clauses per value), per-warp register sums
    if graph.memory_limited:
        live = sum(1 for op in graph.ops if op.regs > 0 or op.smem > 0 or op.tmem > 0)
        terms += live * (3 * ii * ii + (4 * warps + 4) * ii)
    return terms


def _culprit(graph: Graph) -> tuple[str, tuple]:
    """What makes the model large (the largest delay or reservation), and its
    path in the graph's JSON form."""
    i_edge = max(range(len(graph.edges)), key=lambda i: graph.edges[i].delay, default=None)
    i_op = max(range(len(graph.ops)), key=lambda i: max(graph.ops[i].cycles, graph.ops[i].length))
    op = graph.ops[i_op]
    if i_edge is not None and graph.edges[i_edge].delay >= max(op.cycles, op.length):
        e = graph.edges[i_edge]
        return f"edge '{e.src}' -> '{e.dst}' has delay {e.delay}", ("edges", i_edge, "delay")
    return f"op '{op.name}' takes {max(op.cycles, op.length)} cycles", ("ops", i_op)


def check_model_size(graph: Graph, ii: int, warps: int = 1) -> None:
    """Raise :class:`ModelTooLarge` when the model at ``ii`` is over the limit."""
    terms = model_terms(graph, ii, warps)
    if terms > MAX_TERMS:
        what, path = _culprit(graph)
        raise ModelTooLarge(
            f"at II = {ii} the scheduling model would have about {terms:.1e} terms, above the limit of "
            f"{MAX_TERMS}: {what}; rescale the costs (ws-schedule --normalize U, or the pass's normalize "
            f"option)", path=path)
