"""The joint software-pipelining + warp-specialization problem (§4) and
Algorithm 1's search over II and L.

At a fixed II and schedule length L, find a modulo schedule together with a
warp assignment such that: every op issues once per iteration and all copies
follow the same schedule (uniqueness, consistency), finishes by L
(completion), respects dependences and the modular unit capacities; live
values fit in shared memory and, per warp, in the register budget; variable-
latency ops sit alone on a dedicated warp; a value crossing warps pays its
producer's spill cost; and an op that must block on an incoming result
(blocking edge, or a cross-warp transfer) does not start while another op of
its warp is issuing (its unit occupancy; the rest of its latency is the pipeline's).  Liveness and the concurrency check are written over
the steady state, i.e. modulo II, which is where every copy of the
straight-line program Q overlaps and resource pressure peaks.
"""

from __future__ import annotations

import math
import time

from .bounds import Deadline, ModelTooLarge, check_model_size
from .carried import fewest_carried, memory_fits
from .graph import Graph, GraphError
from .modulo import (ModuloModel, ModuloSchedule, critical_length, latest_starts, least_length, modulo_fits, rec_mii,
                     res_mii, streaming_view)
from .solution import Placement, Schedule
from .solvers import Backend, SolverTimeout, make_backend
from .warp_bound import joint_bound
from .warp_layout import on_issuer, warp_layout

QUERY_WORK = 1.0  # deterministic seconds per query of a less preferred warp organisation


class JointModel(ModuloModel):
    """The §4 constraint system at one (II, L)."""

    def __init__(self, graph: Graph, ii: int, length: int, backend: Backend,
                 fixed_starts: dict[str, int] | None = None, memory: bool = True):
        """``memory=False`` leaves the memory constraints out (a necessary condition);
        :meth:`add_memory` adds them later, giving the model built with them."""
        check_model_size(graph, ii, warp_layout(graph).total)
        super().__init__(graph, ii, backend, length, windows=True)
        b = backend
        g = graph
        self.layout = lay = warp_layout(g)
        self.blocked_ok = True  # False: a blocked op can never start (one warp, an op always executing)
        W = lay.total
        if fixed_starts is not None:
            for v, s in fixed_starts.items():
                b.add([(1, self.rho[v][s % ii])], lo=1)
                b.add([(1, self.k[v])], lo=s // ii, hi=s // ii)

        # Warp uniqueness + variable latency (W_vl holds exactly the VL ops; W_st, if any,
        # single-thread ops only). Compute warps are interchangeable: numbered in the order
        # of first use (the j-th fixed-latency op only warps 0..j, w > 1 after w - 1).
        self.opw: dict[str, list] = {}
        j = 0
        earlier: list[list] = []
        for op in g.ops:
            lits = [b.bool(f"w_{op.name}_{w}") for w in range(W)]
            b.exactly_one(lits)
            self.opw[op.name] = lits
            for w in range(W):
                if w == lay.vl_warp:
                    allowed = op.variable_latency
                elif w == lay.issuer:
                    allowed = op.single_thread and not op.variable_latency
                elif lay.issuer is not None and on_issuer(g, op):
                    allowed = False
                else:
                    allowed = (not op.variable_latency) and w <= j
                if not allowed:
                    b.add([(1, lits[w])], hi=0)
                elif 1 < w <= j and w < lay.compute:
                    b.clause([prev[w - 1] for prev in earlier], [lits[w]])
            if not op.variable_latency:
                j += 1
                earlier.append(lits)

        # Local recurrences: a loop-carried value stays on the warp computing it.
        if g.warps is not None and g.warps.local_recurrences and W > 1:
            for e in g.edges:
                if e.distance > 0 and e.src != e.dst and not (
                        g.op(e.src).variable_latency or g.op(e.dst).variable_latency):
                    for w in range(W):
                        b.clause([self.opw[e.dst][w]], [self.opw[e.src][w]])

        # Cross-warp spills: a consumer on another warp waits spill_cost longer.
        self.diff: dict[int, object] = {}
        for idx, e in enumerate(g.edges):
            if e.src == e.dst or W == 1:
                continue
            if g.op(e.src).spill_cost <= 0:
                continue
            d = b.bool(f"x_{idx}")
            self.diff[idx] = d
            for w in range(W):
                # opw[src,w] and not opw[dst,w] -> d
                b.clause([d, self.opw[e.dst][w]], [self.opw[e.src][w]])
            terms = self.start(e.dst) + [(-c, x) for c, x in self.start(e.src)] + [(-g.op(e.src).spill_cost, d)]
            b.add(terms, lo=e.delay - e.distance * ii)

        self._concurrency()
        self.has_memory = False
        if memory:
            self.add_memory()

    # ---------------------------------------------------------------- helpers

    def _same_warp(self, v: str, o: str):
        """A literal forced true when v and o share a warp."""
        b = self.b
        sw = b.bool(f"sw_{v}_{o}")
        for w in range(self.layout.total):
            b.clause([sw], [self.opw[v][w], self.opw[o][w]])
        return sw

    def _concurrency(self) -> None:
        g, b, ii = self.graph, self.b, self.ii
        # In graph order, not set order: the model (and so the solution the
        # solver finds among equally good ones) must not depend on string hashing.
        blocked_static = list(dict.fromkeys(e.dst for e in g.edges if e.blocking))
        guards: dict[str, list] = {v: [] for v in blocked_static}
        for idx, d in self.diff.items():
            v = g.edges[idx].dst
            if v not in blocked_static:
                guards.setdefault(v, []).append(d)
        for v, conds in guards.items():
            always = v in blocked_static
            for o in g.ops:
                # An asynchronous op (a wgmma in flight) does not need its warp's
                # issue slots, so v's wait does not interrupt it: v may wait for an
                # earlier dot while a later one runs (FA3's intra-warpgroup overlap;
                # completion is in issue order, so the wait never waits for it).
                # Only o's issue (its unit occupancy) needs the warp; the rest of its latency is
                # the pipeline's (176-key attention: P's 2-cycle convert, ready 3 cycles after issue,
                # does not keep QK^T's wait for K from issuing in the cycle after).
                if o.name == v or o.length <= 0 or g.is_async(o.name):
                    continue
                sw = self._same_warp(v, o.name) if self.layout.total > 1 else None
                for cond in ([None] if always else conds):
                    extra = [] if cond is None else [(1, cond)]
                    if o.length >= ii:
                        # o is always issuing on its warp: v cannot share it.
                        if sw is None:
                            # One warp: v can never start.  (Cross-warp guards need two warps.)
                            self.feasible_bounds = self.blocked_ok = False
                        else:
                            b.add([(1, sw)] + extra, hi=len(extra))
                        continue
                    for r in range(ii):
                        window = [(1, o_lit) for c in range(o.length) for o_lit in [self.rho[o.name][(r - c) % ii]]]
                        terms = [(1, self.rho[v][r])] + window + extra
                        bound = 1 + len(extra)
                        if sw is not None:
                            terms.append((1, sw))
                            bound += 1
                        b.add(terms, hi=bound)

    def add_memory(self) -> None:
        """Add the memory constraints (last, as a build with them has them): the model is
        then the one built with ``memory=True`` (at the length it was built for)."""
        if not self.has_memory:
            self.has_memory = True
            self._memory()

    def _memory(self) -> None:
        """Liveness over the steady state, register limit per warp, shared memory."""
        g, b, ii = self.graph, self.b, self.ii
        reg_limit = g.warps.reg_limit if g.warps else None
        smem_cap, tmem_cap = g.smem_capacity, g.tmem_capacity
        if not g.memory_limited:
            return
        W = self.layout.total
        max_dist = max((e.distance for e in g.edges), default=0)
        slack = (max_dist + 1) * ii  # the horizon is L + slack
        horizon = self.length + slack
        by_length = self._by_length
        static_regs = [0] * W
        static_smem = 0
        counts: dict[str, list[list[tuple[int, object]]]] = {}
        for op in g.ops:
            v = op.name
            needs = ((reg_limit is not None and op.regs > 0) or (smem_cap is not None and op.smem > 0)
                     or (tmem_cap is not None and op.tmem > 0))
            if not needs:
                continue
            if g.is_streaming(v):
                # §5.3: a streaming op runs `depth` iterations ahead; its buffers are a fixed ring.
                static_smem += g.streaming_depth * op.smem
                if self.layout.vl_warp is not None:
                    static_regs[self.layout.vl_warp] += g.streaming_depth * op.regs
                continue
            users = g.succs(v)
            if not users:
                continue
            e_v = b.int(0, horizon, f"end_{v}")
            by_length.append((e_v, lambda L: (0, L + slack)))
            for e in users:
                b.add([(1, e_v)] + [(-c, x) for c, x in self.start(e.dst)], lo=e.distance * ii)
            b.add([(1, e_v)] + [(-c, x) for c, x in self.start(v)], lo=0)
            q = b.int(0, horizon // ii + 1, f"q_{v}")
            by_length.append((q, lambda L: (0, (L + slack) // ii + 1)))
            ge = [b.bool(f"ge_{v}_{k}") for k in range(1, ii)]  # ge[k-1] <=> m >= k
            for k in range(1, len(ge)):
                b.clause([ge[k - 1]], [ge[k]])
            # lifetime e_v - s_v = q*II + m, m = sum(ge)
            b.add([(1, e_v)] + [(-c, x) for c, x in self.start(v)] + [(-ii, q)] + [(-1, x) for x in ge], lo=0, hi=0)
            extra = [b.bool(f"live_{v}_{r}") for r in range(ii)]
            for r in range(ii):
                for r0 in range(ii):
                    dr = (r - r0) % ii
                    if dr + 1 <= ii - 1:
                        b.clause([extra[r]], [self.rho[v][r0], ge[dr]])
            counts[v] = [[(1, q), (1, extra[r])] for r in range(ii)]

        for cap, size, static in ((smem_cap, "smem", static_smem), (tmem_cap, "tmem", 0)):
            for r in range(ii if cap is not None else 0):
                terms = [(getattr(g.op(v), size) * c, x) for v, per in counts.items() if getattr(g.op(v), size)
                         for c, x in per[r]]
                b.add(terms, hi=cap - static)
        if reg_limit is not None:
            # Per warp: a[v,w,r] = (v on w) and (the partial-turn bit of v's lifetime
            # covers r); qw[v,w] >= q_v when v is on w.  Both only need a lower bound.
            reg_ops = [v for v in counts if g.op(v).regs > 0]
            qmax = horizon // ii + 1
            for w in range(W):
                per_r: list[list[tuple[int, object]]] = [[] for _ in range(ii)]
                for v in reg_ops:
                    if not self._may_use(v, w):
                        continue
                    regs = g.op(v).regs
                    q_v, _ = counts[v][0][0][1], None
                    qw = b.int(0, qmax, f"qw_{v}_{w}")
                    by_length.append((qw, lambda L: (0, (L + slack) // ii + 1)))
                    b.add([(1, qw), (-1, q_v)], lo=0, when=[self.opw[v][w]])
                    for r in range(ii):
                        live = counts[v][r][1][1]
                        a = b.bool(f"a_{v}_{w}_{r}")
                        b.clause([a], [self.opw[v][w], live])
                        per_r[r] += [(regs, a), (regs, qw)]
                for r in range(ii):
                    if per_r[r]:
                        b.add(per_r[r], hi=reg_limit - static_regs[w])

    def retarget(self, length: int) -> None:
        super().retarget(length)
        self.feasible_bounds = self.feasible_bounds and self.blocked_ok

    def fix_starts(self, starts: dict[str, int] | None) -> None:
        """Pin every op to its start in ``starts`` (residue and stage domains), or, with
        None, free them again: then the model is the one built for its length."""
        b, ii = self.b, self.ii
        self._pinned = starts
        for op in self.graph.ops:
            v = op.name
            s = None if starts is None else starts[v]
            for r, lit in enumerate(self.rho[v]):
                b.set_bounds(lit, *((0, 1) if s is None else (int(r == s % ii),) * 2))
            hi = self._stage_bound(op.cycles, self.length)
            b.set_bounds(self.k[v], *((0, hi) if s is None else (s // ii, s // ii)))

    def _may_use(self, v: str, w: int) -> bool:
        op = self.graph.op(v)
        return (w == self.layout.vl_warp) == op.variable_latency and (w != self.layout.issuer or op.single_thread)

    def warp_value(self, v: str) -> int:
        return next(w for w, lit in enumerate(self.opw[v]) if self.b.value(lit))


def joint_schedule(graph: Graph, ii: int, length: int, solver: str = "cpsat",
                   time_limit: float | Deadline = 60.0,
                   fixed_starts: dict[str, int] | None = None, hint: dict[str, int] | None = None,
                   ) -> tuple[dict[str, int], dict[str, int]] | None:
    """``SWP-and-WS(G, M, II, L)``: starts and warps, or None when unsatisfiable.
    With ``fixed_starts`` only the warp assignment is searched; ``hint`` (starts,
    e.g. of the modulo schedule) only guides the search.  ``time_limit``
    (seconds or a shared :class:`Deadline`) bounds building and solving."""
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    b = make_backend(solver, deadline.at, deadline.work)
    return solve_joint(JointModel(graph, ii, length, b, fixed_starts), deadline, hint)


def solve_joint(m: JointModel, deadline: Deadline, hint: dict[str, int] | None = None,
                hint_warps: dict[str, int] | None = None,
                skip_fast: bool = False) -> tuple[dict[str, int], dict[str, int]] | None:
    """Solve a built joint model (at its current length) with ``hint`` starts
    (``skip_fast``: the solver's fast run is known not to settle this query)."""
    if not m.feasible_bounds:
        return None
    _hint(m, hint, hint_warps)
    if not skip_fast:
        settled = m.b.solve_fast(deadline.left())
        if settled is not None:
            return _solution(m) if settled else None
    if not m.b.retargetable:  # (z3: no fast run, no windows)
        return _solution(m) if m.b.solve(deadline.left(), skip_fast=True) else None
    # The solver's standard run, with the start windows on (a proof, mostly: they shorten it;
    # the fast run's answers, on the model as built, are what they were without them).
    try:
        if not (m.tighten(True) and m.b.solve(deadline.left(), skip_fast=True)):
            return None
        return _solution(m)
    finally:
        m.tighten(False)


def _solution(m: JointModel) -> tuple[dict[str, int], dict[str, int]]:
    ops = m.graph.ops
    return {op.name: m.start_value(op.name) for op in ops}, {op.name: m.warp_value(op.name) for op in ops}


def _hint(m: JointModel, hint: dict[str, int] | None, hint_warps: dict[str, int] | None) -> None:
    """Starts (those that complete within the model's length) and warps as search hints."""
    graph, ii, b, length = m.graph, m.ii, m.b, m.length
    for v, s in (hint or {}).items():
        if s + graph.op(v).cycles <= length:
            b.hint(m.k[v], s // ii)
            for r in range(ii):
                b.hint(m.rho[v][r], int(r == s % ii))
        if hint_warps is not None and v in hint_warps:
            for w, lit in enumerate(m.opw[v]):
                b.hint(lit, int(w == hint_warps[v]))


def joint_at_length(model: JointModel | None, graph: Graph, ii: int, length: int, solver: str,
                    deadline: Deadline, hint: dict[str, int] | None,
                    hint_warps: dict[str, int] | None = None,
                    known: dict | None = None) -> tuple[JointModel, object]:
    """The joint query at ``length`` through ``model`` (built for another length
    at this II) moved to it when the backend allows, else through a new model:
    (the model, the answer of :func:`solve_joint`).  ``known``: by length, what this
    very query (same model, same hints) answered already."""
    if model is None or not model.b.retargetable:
        model = JointModel(graph, ii, length, make_backend(solver, deadline.at, deadline.work))
    else:
        model.retarget(length)
    if known is None or length not in known:
        return model, solve_joint(model, deadline, hint, hint_warps)
    return model, known[length]


def _search_range(graph: Graph, deadline: Deadline) -> tuple[Graph, int, int, int]:
    """The streaming view of the graph, its ResMII and RecMII, and the largest II
    Algorithm 1 tries; GraphError when no II can work (ModelTooLarge when even the
    smallest II's model is too large)."""
    g = streaming_view(graph)
    limit = g.warps.reg_limit if g.warps else None
    for i, op in enumerate(g.ops):
        # A live value must fit one warp's registers on its own, at any II.
        if limit is not None and op.regs > limit and g.succs(op.name) and not g.is_streaming(op.name):
            raise GraphError(f"no schedule at any II: op '{op.name}' holds {op.regs} registers per thread "
                             f"while live, above the register limit of {limit}", path=("ops", i, "regs"))
    rmii = res_mii(g)
    total = warp_layout(g).total
    # Both bounds are cheap, but RecMII is found by search over the delays:
    # check the model at ResMII first (a huge reservation is refused at once).
    check_model_size(g, rmii, total)
    cmii = rec_mii(g, deadline)
    ii = max(rmii, cmii)
    check_model_size(g, ii, total)
    cap = ii + sum(max(op.cycles, op.length, 1) for op in g.ops) + sum(e.delay + 1 for e in g.edges) + 2 * len(g.ops)
    return g, rmii, cmii, cap


def twill_among(graphs: list[Graph], solver: str = "cpsat", time_limit: float = 120.0) -> tuple[int, Schedule]:
    """Algorithm 1 over several warp organisations of one loop (graphs in the
    same cost units, e.g. the groups as independent warps and as a ping-pong
    team): II by II from the least MII, the first graph (in the order given,
    the order of preference) with a joint schedule at the smallest II.  Returns
    its index and schedule.  ``time_limit`` covers the whole search."""
    deadline = Deadline(time_limit)
    ranges: dict[int, tuple[int, int]] = {}
    failure: GraphError | None = None
    for i, graph in enumerate(graphs):
        try:
            _, rmii, cmii, cap = _search_range(graph, deadline)
            ranges[i] = (max(rmii, cmii), cap)
        except GraphError as exc:
            failure = failure or exc
    if not ranges:
        raise failure or GraphError("no warp organisation to schedule")
    ii = min(lo for lo, _ in ranges.values())
    while ranges:
        for i in [i for i in sorted(ranges) if ranges[i][0] <= ii]:
            # The preferred organisation gets the time left; each query of the
            # others at most QUERY_WORK of the solver's deterministic time, so a
            # hard proof for a less preferred one cannot hold up the compile (its
            # II is then unknown, and the search goes on).
            share = Deadline(deadline.left(), work=None if i == 0 else QUERY_WORK)
            try:
                return i, twill(graphs[i], solver, share, max_ii=ii, min_ii=ii)
            except GraphError as exc:
                if ii >= ranges[i][1]:
                    failure = failure or exc
                    del ranges[i]
            except SolverTimeout:
                deadline.left()  # out of time altogether: SolverTimeout
        ii += 1
    raise failure


def stage_window(g: Graph, ii: int, solver: str, deadline: Deadline,
                 stages: int = 2) -> tuple[int | None, ModuloSchedule | None, str | None]:
    """Algorithm 1's largest length at this II, ``l_max = ceil(Len(M) / II) * II``,
    with M (the least-length modulo schedule), or a length ``L >= l_max`` with the
    reason, found without the solver (warp_bound), why no joint schedule fits in
    it (hence none in l_max): ``(l_max, M, None)``, ``(L, None, reason)``, or
    ``(None, None, None)`` when there is no modulo schedule at this II.

    Stage by stage from the critical length ``crit`` (a lower bound on Len(M), so
    ``Len(M) > (S0 - 1) * II`` for ``S0 = ceil(crit / II)``): the first S with a
    modulo schedule within ``S * II`` gives l_max.  Where warp_bound refutes ``S * II``
    for some of these S, one feasibility query at the largest of them settles the
    II when a modulo schedule fits there; elsewhere M itself is searched within
    ``S * II`` (its stage domains as small as they can be).  Past ``stages`` more
    stages, M is searched over the whole horizon."""
    first = -(-critical_length(g, ii, deadline) // ii)
    tried = first
    refuted = [(s, r) for s in range(first, first + stages + 1) for r in [joint_bound(g, ii, s * ii)] if r]
    if refuted:
        s, reason = refuted[-1]
        if modulo_fits(g, ii, s * ii, solver, deadline):
            return s * ii, None, reason
        tried = s + 1  # Len(M) > s * II
    for s in range(tried, first + stages + 1):
        ms = least_length(g, ii, solver, deadline, guess=s * ii, exact=True)
        if ms is not None:
            return s * ii, ms, None
    ms = least_length(g, ii, solver, deadline)
    if ms is None:
        return None, None, None
    l_max = math.ceil(ms.length / ii) * ii
    return l_max, ms, joint_bound(g, ii, l_max)


def _least_joint_length(g: Graph, ii: int, ms, l_max: int, solver: str, deadline: Deadline,
                        attempts: list, model: JointModel | None = None, l_max_early: bool = False,
                        ) -> tuple[JointModel | None, tuple[dict[str, int], dict[str, int]] | None]:
    """The joint schedule of least length L in [Len(M), l_max] (the L Algorithm
    1's scan reaches first), or None, with the model that found it.  Feasibility is monotone in L, so any
    search order finds that L: Len(M) first (a lower bound, and often the
    answer: then no proof of infeasibility is needed), then l_max, whose
    solution settles every length from its own up, then bisection below it
    (one model for every length: building it costs more than most solves).

    ``l_max_early`` (where no schedule at l_max is likely: the one without memory
    overfills it): the query at l_max comes first, settled; its "no" holds for every length (the queries below it are not asked; their unsat entries
    are recorded as the scan would), and after a "yes" the scan asks what it would have
    asked, the answers known kept (the same model, the same hints: the same answers)."""

    def length_of(found) -> int:
        return max(ms.length, max(found[0][op.name] + op.cycles for op in g.ops))

    lo = ms.length
    # Warps as a hint: every compute op on the first compute warp (the solver
    # moves what must move), then each solution's warps for the next probe.
    first = {op.name: 0 for op in g.ops if not op.variable_latency}
    known: dict[int, object] = {}
    if l_max_early and lo < l_max and model is not None and model.b.retargetable:
        # The query at l_max first, settled: its "no" holds for every length, one proof
        # instead of one per length the scan asks.  Otherwise the scan goes on as it would
        # have (the same queries, the same answers: the one at l_max is known).
        model.retarget(l_max)
        known[l_max] = solve_joint(model, deadline, ms.starts, first)
        if known[l_max] is None:
            attempts += [{"II": ii, "L": n, "joint": "unsat"} for n in (lo, lo + 1) if n < l_max]
            return model, None
    model, found = joint_at_length(model, g, ii, lo, solver, deadline, ms.starts, first, known)
    attempts.append({"II": ii, "L": lo, "joint": "sat" if found else "unsat"})
    if found is not None:
        return model, found
    if lo == l_max:
        return model, None
    lo += 1
    if lo < l_max:
        # One cycle more is the answer more often than not (flash attention d256, causal
        # d64): when it is, no descent from l_max is needed.
        model, found = joint_at_length(model, g, ii, lo, solver, deadline, ms.starts, first)
        attempts.append({"II": ii, "L": lo, "joint": "sat" if found else "unsat"})
        if found is not None:
            return model, found
        lo += 1
    model, found = joint_at_length(model, g, ii, l_max, solver, deadline, ms.starts, first, known)
    if found is None:
        return model, None
    hi = length_of(found)
    probe = hi - 1
    while lo < hi:
        model, at = joint_at_length(model, g, ii, probe, solver, deadline, found[0], found[1])
        attempts.append({"II": ii, "L": probe, "joint": "sat" if at else "unsat"})
        if at is None:
            lo = probe + 1
        else:
            found, hi = at, length_of(at)
        probe = (lo + hi) // 2
    attempts.append({"II": ii, "L": hi, "joint": "sat"})
    return model, found


def twill(graph: Graph, solver: str = "cpsat", time_limit: float | Deadline = 120.0, max_ii: int | None = None,
          min_ii: int | None = None) -> Schedule:
    """Algorithm 1: from the smallest II that has a modulo schedule, try the
    joint problem at every L that keeps ceil(L/II) unchanged; on failure move
    to the next II.  The modulo schedule M seeds each attempt: first with M's
    starts fixed (warps only), then with the starts free.  ``min_ii`` /
    ``max_ii`` restrict the IIs tried (GraphError when none of them works).

    Bounded: ``time_limit`` covers everything (the bounds, building each model
    and each solve, which gets the time left as the solver's own limit), and no
    model above :data:`~.bounds.MAX_TERMS` is built (:class:`~.bounds.ModelTooLarge`
    when even the smallest II is too large; otherwise the search stops at the
    last II whose model fits)."""
    t0 = time.perf_counter()
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    g, rmii, cmii, top = _search_range(graph, deadline)
    lay = warp_layout(g)
    limited = g.memory_limited
    ii = max(rmii, cmii, min_ii or 0)
    cap = max_ii if max_ii is not None else top
    attempts = []
    while ii <= cap:
        try:
            check_model_size(g, ii, lay.total)
        except ModelTooLarge as exc:
            raise GraphError(f"no schedule for II up to {ii - 1}; {exc.message}", path=exc.path) from None
        # Algorithm 1 tries L = Len(M), Len(M)+1, ... while ceil(L/II) is unchanged.
        # Feasibility is monotone in L (a larger L only relaxes completion), so
        # one query at the largest such L, l_max, decides the whole inner loop.
        l_max, ms, reason = stage_window(g, ii, solver, deadline)
        if ms is None and reason is None:
            attempts.append({"II": ii, "modulo": "infeasible"})
            ii += 1
            continue
        # The joint problem without memory (a necessary condition), guided by M's
        # starts (which speeds up its proofs too): the model at l_max, before its
        # memory constraints are added.
        model = relaxed = None
        backend = make_backend(solver, deadline.at, deadline.work)
        if reason is None and (backend.retargetable or limited):
            model = JointModel(g, ii, l_max, backend, memory=False)
            if limited:
                relaxed = solve_joint(model, deadline, ms.starts)
                if relaxed is None:
                    reason = "without memory"
        if reason is not None:
            attempts.append({"II": ii, "L": l_max, "joint": f"unsat ({reason})"})
            ii += 1
            continue
        # M's tie-break (ops as late as possible) only matters from here on.
        ms = latest_starts(g, ii, ms, solver, deadline)
        found = None
        if backend.retargetable:  # M's starts pinned by their domains, then freed for the search
            model.add_memory()
            model.retarget(ms.length)
            model.fix_starts(ms.starts)
            found = solve_joint(model, deadline)
            model.fix_starts(None)
        else:
            found = joint_schedule(g, ii, ms.length, solver, deadline, fixed_starts=ms.starts)
            model = None
        if found is not None:
            attempts.append({"II": ii, "L": ms.length, "joint": "sat (modulo starts kept)"})
        else:
            overfilled = relaxed is not None and not memory_fits(g, ii, *relaxed)
            model, found = _least_joint_length(g, ii, ms, l_max, solver, deadline, attempts, model, overfilled)
            if found is None:
                attempts.append({"II": ii, "L": l_max, "joint": "unsat"})
                ii += 1
                continue
        # A streaming op's stage is free (no incoming dependence, outgoing delays
        # zero, its buffers a fixed ring, its residue alone reserves its unit):
        # it is reported at its residue, stage 0, whichever stage the solver chose.
        def streamed(starts: dict[str, int]) -> dict[str, int]:
            return {v: s % ii if g.is_streaming(v) else s for v, s in starts.items()}
        starts, warps = streamed(found[0]), found[1]
        if model is not None:  # among the schedules of this (II, L), the fewest registers carried
            starts, warps = fewest_carried(model, starts, warps, deadline)
            starts = streamed(starts)
        return Schedule(
            ii=ii,
            length=max(starts[op.name] + op.cycles for op in g.ops),
            ops={op.name: Placement(starts[op.name], starts[op.name] // ii, warps[op.name]) for op in g.ops},
            solve_seconds=time.perf_counter() - t0, solver=solver, res_mii=rmii, rec_mii=cmii,
            warp_count=lay.compute, vl_warp=lay.vl_warp, issuer_warp=lay.issuer, attempts=attempts)
    raise GraphError(f"no schedule satisfies the joint constraints for II up to {cap}")
