"""`ws-schedule{arch=h100 solver=cpsat time-limit=S normalize=U pingpong=true partner-latency=auto reg-limit=R warp-groups=G}`:
Twill's optimal schedule written on the IR (stage 8; it runs before ws-partition).

For every tile kernel whose main loop (the top-level `scf.for` holding a TMA load) is
straight-line code, the pass builds the loop's dependence graph with the machine model of
`arch` (`h100` or `b200`; `wsdialects.schedule.from_ir`), normalizes its costs to at most U
cycles (`normalize`, Twill §5.2) and solves the joint software-pipelining / warp-assignment
problem (Algorithm 1) with `solver` (`cpsat` or `z3`). Every graph node of the loop body (the ops producing
tiles, and stores) gets `ws.stage` (start // II: the iteration offset it runs at in the steady
state), `ws.order` (its rank in the steady state by issue cycle, ties in program order) and
`ws.warp` (its warp group: compute groups 0..n-1, the TMA group n). The loop gets
`ws.schedule = {II, L, warps = n, vl_warp = n, solver}`, plus `cooperative = s` when each
scheduled warp is a team of s warp groups splitting the tiles by rows, and `pingpong = true`
when that team runs offset in time (FA3's ping-pong). ws-specialize then builds what the
schedule asks for (ws-cooperative, ws-pingpong):

    %qk = tile.dot %q, %kt, %z : ... -> tensor<128x128xf32>
    %p = math.exp2 %qk_c : tensor<128x128xf32>
  ==>
    %qk = tile.dot %q, %kt, %z : ... -> tensor<128x128xf32> {ws.order = 1 : i32, ws.stage = 0 : i32, ws.warp = 0 : i32}
    %p = math.exp2 %qk_c {ws.order = 7 : i32, ws.stage = 0 : i32, ws.warp = 0 : i32} : tensor<128x128xf32>

Layout-only ops (transpose, broadcast, ...) and scalar index arithmetic are not graph nodes
and get no attributes; the partitioning passes place them with their users.

With `pingpong=true` (the default) the joint problem also considers ping-pong teams, whose
members reserve the units at offsets of II/s (`wsdialects.schedule.joint.twill_among`). The
least II wins; a tie goes to the ping-pong team when its members have work besides their MMAs
(a softmax) for the partner's MMAs to overlap, else to the lockstep team, which pays no turn
barriers. `partner-latency` says how a ping-pong member's elementwise ops are priced: `true`
at the machine model's `chain_latency.with_partner` times their unit occupancy (a softmax runs
slower beside a second warp group, which shares its issue slots), `false` at their occupancy,
and `auto` at their occupancy unless that schedule leaves a member nothing of its own to overlap
(every compute op in stage 0). Such a member's chain is hidden by its partner's MMAs alone, so
the loop is solved again with the partner's prices, and that schedule is kept where its
registers fit a member's budget (its setmaxnreg less the scalars ws-register-budget counts); a
pipelined schedule already keeps its own next MMA in flight beside the chain, and priced with
the partner it would carry more registers than a member has. `ws.schedule` says
`partner_latency = true` when the partner's prices made it.

`arch=b200` schedules for the Blackwell model (on paper: nothing lowers it): dot results live
in tensor memory, read and written through tcgen05.ld / tcgen05.st nodes that block on the MMA,
and the MMAs go on an issuer warp of their own; `ws.schedule` then names it (`issuer_warp`),
and the Hopper passes refuse such a schedule with a located error. On the bundled FA4-style
kernel it finds FA4's warp roles (docs/blackwell-schedules.md). `time-limit` and `normalize`
default to the machine model's (`search` in its JSON: 10 s and U = 300 on h100, 60 s and
U = 24 on b200); `reg-limit` replaces the machine's registers per thread of a compute warp group
(a reduced budget, as Twill §6.3.2 tries; 24-255); `warp-groups` the compute warp groups to
schedule for (1-8; default `tile.num_warps / 4`), and the kernel's `tile.num_warps` becomes 4 times it.

`time-limit` (seconds) bounds the whole search: building the graph, normalizing it and every
solve, each of which gets the time that is left as the solver's own limit; the model at each
II is bounded in size before it is built (`wsdialects.schedule.bounds`). Solutions (and
failures) are cached per process by graph. A kernel that cannot be scheduled (no such loop,
nested control flow, no schedule, a model above the size limit, the time limit) is left as it
is, with a remark at the loop, and the heuristic pipeline (Tawa's rules) compiles it:

    k.mlir:24:5: remark: ws-schedule: @attention: no schedule within the time limit of 10 s; falling back to the heuristic pipeline (raise time-limit to search longer)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i1, i32
from xdsl.passes import ModulePass

from wsdialects.diagnostics import WsError
from wsdialects.transforms.partition import (
    ORDER_ATTR,
    SCHEDULE_ATTR,
    STAGE_ATTR,
    WARP_ATTR,
    kernels,
    main_loop,
    remark,
)

_CACHE: dict[str, object] = {}


def _has_non_mma_work(lg) -> bool:
    """Whether a scheduled warp runs fixed-latency ops of its own besides asynchronous
    MMAs (exponentials, reductions, conversions; index arithmetic recomputed per
    partition does not count): what a ping-pong partner's MMAs can overlap."""
    g = lg.graph
    index = {lg.names[op] for op in lg.index_ops}
    return any(not op.variable_latency and not g.is_async(op.name) and op.name not in index for op in g.ops)


def _pipelined(graph, sched) -> bool:
    """Whether some fixed-latency op of the compute warps runs in a later stage than the
    others (a warp overlaps its own work of two iterations)."""
    return any(sched.ops[op.name].stage > 0 for op in graph.ops if not op.variable_latency)


def _member_budget(lg) -> int:
    """Registers per thread a compute warp group has for its tiles once lowered: the
    setmaxnreg budget ws-distribute gives it beside the producer, less the scalars
    (addresses, counters, descriptors) that ws-register-budget counts on top of the tiles."""
    from wsdialects.attributes import WARP_GROUP_WARPS
    from wsdialects.lower.register_budget import OVERHEAD
    from wsdialects.transforms.distribute import consumer_regs

    groups = lg.graph.warps.count * lg.groups_per_warp
    return min(consumer_regs(groups * WARP_GROUP_WARPS), 255) - OVERHEAD


def solve_cached(graphs, solver: str, time_limit: float, key_limit: float | None = None):
    """`twill_among(graphs)` once per (graphs, solver, limit) per process: (index of
    the chosen graph, its schedule); ``key_limit`` is the limit the caller was given
    (the cache key), ``time_limit`` what is left of it."""
    from wsdialects.schedule.joint import twill_among

    key = json.dumps([[g.to_dict() for g in graphs], solver, key_limit if key_limit is not None else time_limit],
                     sort_keys=True)
    if key not in _CACHE:
        try:
            _CACHE[key] = twill_among(graphs, solver=solver, time_limit=time_limit)
        except Exception as exc:  # GraphError, SolverTimeout: remembered too
            _CACHE[key] = exc
    if isinstance(_CACHE[key], Exception):
        raise _CACHE[key]
    return _CACHE[key]


def steady_state_order(graph, sched, program: list[str]) -> list[str]:
    """The ops of one steady-state step in issue order: by issue cycle within the II; ops
    issued in the same cycle in dependence order where one reads the other's result in this
    step (a zero-delay edge whose source's stage less its distance is its destination's stage:
    iteration i's op of stage s runs in step i + s, so a row sum updated one stage late is read
    by the next iteration in the step that computes it), else in program order."""
    ii = sched.ii
    index = {n: i for i, n in enumerate(program)}
    residue = {n: sched.ops[n].start % ii for n in program}
    stage = {n: sched.ops[n].start // ii for n in program}
    before = {n: set() for n in program}  # same cycle, same step: must precede n
    for e in graph.edges:
        if (e.src != e.dst and e.src in index and e.dst in index and residue[e.src] == residue[e.dst]
                and stage[e.src] - e.distance == stage[e.dst]):
            before[e.dst].add(e.src)
    ranked, done = [], set()
    for n in sorted(program, key=lambda n: (residue[n], index[n])):
        todo = [n]
        while todo:  # place n after what it reads in its cycle (a DAG: the schedule is valid)
            m = todo[-1]
            if m in done:
                todo.pop()
                continue
            waiting = sorted((u for u in before[m] if u not in done), key=index.__getitem__)
            if waiting:
                todo.append(waiting[0])
                continue
            todo.pop()
            done.add(m)
            ranked.append(m)
    return ranked


@dataclass(frozen=True)
class SchedulePass(ModulePass):
    """Solve each kernel's main loop with Twill and write the schedule on it as ws.* attributes."""

    name = "ws-schedule"
    arch: str = "h100"
    solver: str = "cpsat"
    time_limit: int | float | None = None  # None: the machine's (10 s on h100, 60 s on b200)
    normalize: int | None = None  # None: the machine's (300 on h100, the paper's U; 12 on b200)
    reg_limit: int | None = None  # registers per thread of a compute warp group; None: the machine's share
    warp_groups: int | None = None  # compute warp groups; None: tile.num_warps / 4
    pingpong: bool = True
    partner_latency: bool | str = "auto"

    def apply(self, ctx, op: ModuleOp) -> None:
        from wsdialects.schedule import GraphError, SolverTimeout
        from wsdialects.schedule.bounds import MAX_NORMALIZE_BOUND
        from wsdialects.schedule.solvers import SOLVERS, require_solver

        if self.arch not in ("h100", "b200"):
            raise WsError(f"ws-schedule: unknown arch '{self.arch}' (choose from h100, b200)", "ws-opt")
        if self.solver not in SOLVERS:
            raise WsError(f"ws-schedule: unknown solver '{self.solver}' (choose from {', '.join(SOLVERS)})",
                          "ws-opt")
        require_solver(self.solver, "ws-opt")  # z3 is an extra: name it before any work
        if self.time_limit is not None and not 0 < self.time_limit <= 86400:
            raise WsError(f"ws-schedule: time-limit must be a number of seconds from 0 to 86400, "
                          f"got {self.time_limit}", "ws-opt")
        if self.warp_groups is not None and not 1 <= self.warp_groups <= 8:
            raise WsError(f"ws-schedule: warp-groups must be from 1 to 8, got {self.warp_groups}", "ws-opt")
        if self.reg_limit is not None and not 24 <= self.reg_limit <= 255:
            raise WsError(f"ws-schedule: reg-limit must be from 24 to 255 registers per thread, got {self.reg_limit}",
                          "ws-opt")
        if self.partner_latency not in (True, False, "auto"):
            raise WsError(f"ws-schedule: partner-latency must be true, false or auto, got '{self.partner_latency}'",
                          "ws-opt")
        if self.normalize is not None and not 1 <= self.normalize <= MAX_NORMALIZE_BOUND:
            raise WsError(f"ws-schedule: normalize must be from 1 to {MAX_NORMALIZE_BOUND}, got {self.normalize}",
                          "ws-opt")
        for kernel in kernels(op):
            loop = main_loop(kernel)
            name = kernel.sym_name.data
            if loop is None:
                remark(kernel, f"ws-schedule: @{name} has no loop with a TMA load; not scheduled "
                               f"(the heuristic pipeline applies)")
                continue
            try:
                self.schedule(kernel, loop)
            except SolverTimeout:
                remark(loop, f"ws-schedule: @{name}: no schedule within the time limit of {self.limits()[0]:g} s; "
                             f"falling back to the heuristic pipeline (raise time-limit to search longer)")
            except GraphError as exc:  # at the op it is about, if any
                remark(getattr(exc, "op", None) or loop, f"ws-schedule: @{name} not scheduled: {exc.message}; "
                                                         f"falling back to the heuristic pipeline")

    def limits(self) -> tuple[float, int]:
        """The time limit and the §5.2 bound U: as given, else the machine model's defaults."""
        from wsdialects.schedule.machine import load_machine

        machine = load_machine(self.arch)
        return (machine.time_limit if self.time_limit is None else self.time_limit,
                machine.normalize if self.normalize is None else self.normalize)

    def schedule(self, kernel, loop) -> None:
        """Solve the joint problem for `loop` and write the schedule on it."""
        lg, _, sched = self.choose(kernel, loop)
        self._write(loop, lg, sched)
        if self.warp_groups is not None:  # the kernel now launches the warps it was scheduled for
            kernel.attributes["tile.num_warps"] = IntegerAttr(4 * self.warp_groups, i32)

    def choose(self, kernel, loop):
        """The warp organisation the joint problem picks for `loop`: (its loop graph, the
        normalized graph that was solved, the schedule). `tools/schedule_gantt.py` draws it."""
        deadline = time.monotonic() + self.limits()[0]
        first = self._solve(kernel, loop, self.partner_latency is True, deadline)
        lg, graph, sched = first
        if self.partner_latency != "auto" or not lg.pingpong or _pipelined(graph, sched):
            return first
        from wsdialects.schedule import SolverTimeout
        from wsdialects.schedule.carried import register_peak

        try:  # the member's chain hidden by its partner alone: price it as measured beside it
            partner = self._solve(kernel, loop, True, deadline)
        except SolverTimeout:
            return first
        plg, pgraph, psched = partner
        if not plg.pingpong or register_peak(pgraph, psched) > _member_budget(plg):
            return first
        return partner

    def _solve(self, kernel, loop, partner_latency: bool, deadline: float):
        from wsdialects.schedule.from_ir import graph_of_loop
        from wsdialects.schedule.normalize import normalize_graphs

        left = deadline - time.monotonic()
        # The warp organisations the joint problem chooses among: the compute
        # groups as independent warps (or lockstep cooperative teams, when a tile
        # needs them), and as ping-pong teams; one cost map, so IIs compare.
        organisations = [graph_of_loop(kernel, loop, self.arch, self.warp_groups, reg_limit=self.reg_limit)]
        if self.pingpong:
            pingpong = graph_of_loop(kernel, loop, self.arch, self.warp_groups, pingpong=True,
                                     partner_latency=partner_latency, reg_limit=self.reg_limit)
            # On a tie the organisation listed first wins. The ping-pong team goes
            # first when its members have work of their own besides their MMAs (the
            # softmax) for the partner's MMAs to overlap; a loop of MMAs alone has
            # nothing to overlap and would only pay the turn barriers.
            first = pingpong is not None and _has_non_mma_work(pingpong)
            organisations.insert(0 if first else 1, pingpong)
        loop_graphs = [lg for lg in organisations if lg is not None]
        # §5.2's program gets at most a quarter of the time (it falls back to
        # proportional scaling when out of time); the search gets the rest.
        limit, bound = self.limits()
        graphs = normalize_graphs([lg.graph for lg in loop_graphs], bound, time_limit=left / 4)
        left = deadline - time.monotonic()
        # The least II wins; on a tie, the organisation listed first.
        chosen, sched = solve_cached(graphs, self.solver, max(left, 0.01), key_limit=float(limit))
        return loop_graphs[chosen], graphs[chosen], sched

    def _write(self, loop, lg, sched) -> None:
        names = lg.names
        order = {n: i for i, n in enumerate(steady_state_order(lg.graph, sched, list(names.values())))}
        for body_op in loop.body.block.ops:
            for a in (STAGE_ATTR, ORDER_ATTR, WARP_ATTR):
                body_op.attributes.pop(a, None)
        for body_op, name in names.items():
            p = sched.ops[name]
            body_op.attributes[STAGE_ATTR] = IntegerAttr(p.stage, i32)
            body_op.attributes[ORDER_ATTR] = IntegerAttr(order[name], i32)
            if body_op not in lg.index_ops:  # index arithmetic: recomputed where used
                body_op.attributes[WARP_ATTR] = IntegerAttr(p.warp, i32)
        info = {"II": IntegerAttr(sched.ii, i32), "L": IntegerAttr(sched.length, i32),
                "warps": IntegerAttr(sched.warp_count, i32), "solver": StringAttr(self.solver)}
        if lg.groups_per_warp > 1:
            info["cooperative"] = IntegerAttr(lg.groups_per_warp, i32)
        if lg.pingpong:
            info["pingpong"] = BoolAttr(True, i1)
        if lg.partner_latency:
            info["partner_latency"] = BoolAttr(True, i1)
        if sched.vl_warp is not None:
            info["vl_warp"] = IntegerAttr(sched.vl_warp, i32)
        if sched.issuer_warp is not None:  # Blackwell: the warp issuing tcgen05.mma
            info["issuer_warp"] = IntegerAttr(sched.issuer_warp, i32)
        loop.attributes[SCHEDULE_ATTR] = DictionaryAttr(info)
