"""`ws-pipeline-coarse`: coarse-grained pipelining across loop iterations (Tawa
§III-D2, Algorithm 1).

A consumer loop whose tensor-core dot T feeds elementwise / reduction work C that
feeds a second dot U (attention: T = QK^T, C = the softmax update, U = PV) is
software-pipelined over two stages: U (with the aref slots only it reads) runs one
iteration late, so the tensor core works on T_j and U_{j-1} while the CUDA cores
run C_j:

    prologue  T_0; wait; C_0                       (guarded: only if the loop runs)
    loop j    issue T_j; issue U_{j-1}; wait T_j (pending = 1); C_j;
              wait U_{j-1} (pending = 0); rescale with U_{j-1}'s result
    epilogue  issue U_{N-1}; wait

Values U_{j-1} needs from iteration j-1 (P_{j-1}, the rescaled accumulator, its
aref position) travel in new iter_args; `aref.get` / `aref.consumed` move with the
stage that reads the slot, so each stage waits for and releases only its own
tiles. `mma.wait` pending counts are recomputed from the issue order.

The stages come from dialect and type cues (T: a dot depending on no other dot of
the iteration; C: work reading T's result; U: a dot whose A or B operand C
computes), or from `ws.stage` (and `ws.order`, the order of the steady state)
written by `ws-schedule`. Loops without a C stage (GEMM, dual dots) are left to
`ws-pipeline-mma`, and so are loops where a ring tile read in stage 0 is read again in
stage 1 (attention backward's Q_i and dO_i): the late reader would take it from the
iteration before as a loop value, and wgmma reads a slot's tiles only where they are got.
The partitions' copies of a scheduled loop are pipelined together
(`stages.plan_group`): an op without `ws.stage` never runs before an operand another
partition sends it, a ring gets a slot for every position alive at once (a tile put in
stage 0 and read in stage 1 holds one more), and when one copy cannot follow its stages
no copy is pipelined (a copy out of step with the others can deadlock them). The
pipelined loop records `ws.peeled = 1`: its first iteration runs in the prologue
before it.

    %r:3 = scf.for %j = %c0 to %n ...            %g:3 = scf.if %trips_pos -> (...) {
      %k = aref.get %rk[%j]                         <T_0, C_0>
      %qk = mma.async_dot %q, %kt, %z      ==>      %l:7 = scf.for %j = %c1 to %n iter_args(..., %alpha_p, %j_p, %p16_p, %acc_p) {
      %s = mma.wait %qk {pending = 0}                 %qk = mma.async_dot ...          // T_j
      ... softmax (%alpha, %p16) ...                  %acc_s = arith.mulf %acc_p, <%alpha_p broadcast>
      %acc_s = arith.mulf %acc, <%alpha ...>          %v = aref.get %rv[%j_p]
      %v = aref.get %rv[%j]                           %o = mma.async_dot %p16_p, %v, %acc_s    // U_{j-1}
      %o = mma.async_dot %p16, %v, %acc_s             %s = mma.wait %qk {pending = 1}
      %ow = mma.wait %o {pending = 0}                 ... softmax ...
                                                      %ow = mma.wait %o {pending = 0}
                                                    } {ws.peeled = 1 : i32}
                                                    <rescale, U_{N-1}>
                                                  } else { scf.yield %inits }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass

from wsdialects.aref import ConsumedOp, GetOp, PutOp
from wsdialects.diagnostics import WsError
from wsdialects.mma import AsyncDotOp, WaitOp
from wsdialects.tile import DotOp
from wsdialects.transforms.borrowed_tiles import borrowed, users_in
from wsdialects.transforms.partition import SCHEDULE_ATTR, remark
from wsdialects.transforms.pipeline_mma import PipelineMmaPass
from wsdialects.transforms.qk_ahead import (
    SOFTMAX_OVERLAPS,
    defer_accumulator_wait,
    qk_ahead_stages,
    retire_all_at_carried_wait,
)
from wsdialects.transforms.schedule_check import check_schedule
from wsdialects.transforms.stages import (
    ORDER_ATTR,
    SLOT_VIEWS,
    STAGE_ATTR,
    LoopBody,
    NotPipelined,
    check_stages,
    complete_stages,
    deepen,
    dots,
    int_attr,
    plan_group,
    pure,
    tawa_stages,
)
from wsdialects.transforms.trip_count import trip_count
from wsdialects.warp_group import RegionOp

PEELED_ATTR = "ws.peeled"
QK_AHEAD_ATTR = "ws.qk_ahead"  # the loop issues the next tile's first dot before this tile's softmax
_GLOBAL_MEMORY = {"tile.load", "tile.store", "tile.desc_load", "tile.desc_store", "tile.atomic_add"}


def _touches_global_memory(op: Operation) -> bool:
    return any(o.name in _GLOBAL_MEMORY for o in op.walk())


# ----------------------------------------------------------------------------- rewrite


def _made_at(o: Operation) -> list[int]:
    """For an `aref.get`: the `ws.order` of the ops whose results the other partition puts
    into its ring (the get waits for them, so it ranks no earlier; an unranked user of the
    value then follows it, as the schedule's same-stage rule asks). Empty otherwise."""
    if not isinstance(o, GetOp):
        return []
    made = [int_attr(v.owner, ORDER_ATTR) for use in o.ring.uses if isinstance(use.operation, PutOp)
            for v in use.operation.values if isinstance(v, OpResult)]
    return [r for r in made if r is not None]


def _order(body: LoopBody, stage: dict[Operation, int], late_defs: dict[BlockArgument, Operation],
           use_schedule: bool) -> list[tuple[int, Operation]]:
    """The steady-state body: (stage, op) in an order respecting the dependences.

    Without a schedule: stage 0's dot issue, stage 1's dot issue, the rest of
    stage 0, the rest of stage 1, then stage-0 work that needs stage 1's results
    (Algorithm 1). With `ws.order`: list scheduling by that rank."""
    nodes = list(body.ops)
    deps: dict[Operation, set[Operation]] = {o: {d for d in body.deps[o] if stage[d] == stage[o]} for o in nodes}
    args = set(late_defs)
    for o in nodes:
        if stage[o] == 0:
            deps[o] |= {late_defs[a] for a in body.reads(o) if a in args}
    for s in (0, 1):  # side effects keep their order within a stage ...
        prev = None
        for o in nodes:
            if stage[o] == s and not pure(o) and not isinstance(o, ConsumedOp):
                if prev is not None:
                    deps[o].add(prev)
                prev = o
    # ... except releases, which only follow the get and the (retired) readers of the slot.
    gets = {g.ring: g for g in nodes if isinstance(g, GetOp)}
    for c in (o for o in nodes if isinstance(o, ConsumedOp)):
        g = gets[c.ring]
        readers = [r for r in users_in(body.block, borrowed(body.block, g, SLOT_VIEWS)) if stage[r] == stage[c]]
        retire = [w for r in readers if isinstance(r, AsyncDotOp) for w in body.users[r] if isinstance(w, WaitOp)]
        deps[c] |= {x for x in [g, *readers, *retire] if stage[x] == stage[c]}
    memory1 = [o for o in nodes if stage[o] == 1 and _touches_global_memory(o)]
    for o in nodes:  # iteration j-1's memory accesses before iteration j's
        if stage[o] == 0 and _touches_global_memory(o):
            deps[o] |= set(memory1)
    if use_schedule:
        # Unranked ops: just before their first ranked user (views, gets), else
        # right after their operands (puts and releases go out as soon as they
        # can); a wait whose result only leaves the iteration goes last.
        succ: dict[Operation, set[Operation]] = {o: set() for o in nodes}
        for o in nodes:
            for d in deps[o]:
                succ[d].add(o)
        rank: dict[Operation, float] = {o: r for o in nodes if (r := int_attr(o, ORDER_ATTR)) is not None}
        for o in reversed(nodes):
            if o not in rank and (users := [rank[u] for u in succ[o] if u in rank]):
                rank[o] = min(users)
        for o in nodes:
            if o not in rank:  # a wait nobody in the body reads (releases aside): as late as possible
                late = isinstance(o, WaitOp) and all(isinstance(u, ConsumedOp) for u in succ[o])
                rank[o] = float("inf") if late else \
                    max([rank[d] for d in deps[o] if d in rank] + _made_at(o), default=-1)
        key = {o: (rank[o], body.index[o]) for o in nodes}
    else:
        needs_late = body.closure([o for o in nodes if stage[o] == 0 and deps[o] & set(late_defs.values())],
                                  {o: {u for u in body.users[o] if stage[u] == 0} for o in nodes})
        issue = {s: set().union(*[body.backward(d) for d in nodes if isinstance(d, AsyncDotOp | DotOp)
                                  and stage[d] == s] or [set()]) for s in (0, 1)}

        def cls(o):
            s = stage[o]
            if s == 0 and o in needs_late:
                return 4
            if o in issue[s] and (s == 1 or o not in needs_late):
                return s
            return 2 + s

        key = {o: (cls(o), body.index[o]) for o in nodes}
    out, placed = [], set()
    pending = set(nodes)
    while pending:
        ready = [o for o in pending if deps[o] <= placed]
        o = min(ready, key=lambda x: key[x])
        out.append((stage[o], o))
        placed.add(o)
        pending.remove(o)
    return out


def retime_waits(block: Block) -> None:
    """Give each mma.wait of `block` the largest pending count that still retires
    what it waits for (dots complete in issue order): the dots issued after the
    newest one it names stay in flight; nothing more retires if that is done."""
    inflight: list[Operation] = []
    for o in block.ops:
        if isinstance(o, AsyncDotOp):
            inflight.append(o)
        elif isinstance(o, WaitOp):
            mine = [inflight.index(v.op) for v in o.operands if isinstance(v, OpResult) and v.op in inflight]
            pending = len(inflight) - 1 - max(mine) if mine else len(inflight)
            o.properties["pending"] = IntegerAttr(pending, 32)
            inflight = inflight[len(inflight) - pending:] if pending else []


def _clone_into(block: Block, op: Operation, mapping: dict[SSAValue, SSAValue]) -> Operation:
    new = op.clone(value_mapper=mapping)
    for old_r, new_r in zip(op.results, new.results):
        mapping[old_r] = new_r
        new_r.name_hint = old_r.name_hint
    block.add_op(new)
    return new


def pipeline(loop: scf.ForOp, stage: dict[Operation, int], body: LoopBody, use_schedule: bool) -> scf.ForOp:
    """Rewrite `loop` so stage-1 ops run one iteration behind stage 0 (see module doc);
    return the steady-state loop."""
    block = body.block
    iv, iter_args = block.args[0], list(block.args[1:])
    yields = list(block.last_op.operands)
    inits = list(loop.iter_args)
    s0 = [o for o in body.ops if stage[o] == 0]
    s1 = [o for o in body.ops if stage[o] == 1]
    s1_set = set(s1)
    late = [i for i, y in enumerate(yields) if body.top(y) in s1_set]
    early = [i for i in range(len(yields)) if i not in late]
    late_defs = {iter_args[i]: body.top(yields[i]) for i in late}
    # Values stage 1 reads from iteration j-1's stage 0 (incl. the iv, early iter_args).
    carried: list[SSAValue] = []
    late_read: list[int] = []
    for o in s1:
        for v in (v for inner in o.walk() for v in inner.operands):
            if v in late_defs:
                i = iter_args.index(v)
                if i not in late_read:
                    late_read.append(i)
            elif (v is iv or v in iter_args or body.top(v) in stage and stage[body.top(v)] == 0) \
                    and v not in carried:
                carried.append(v)

    parent = loop.parent_block()
    count_ops, trips = trip_count(loop)
    runs = arith.CmpiOp(trips, count_ops[2].results[0], "sgt")  # count_ops[2]: the constant 0
    runs.result.name_hint = "runs"
    second = arith.AddiOp(loop.lb, loop.step)
    second.result.name_hint = "second"
    parent.insert_ops_before([*count_ops, runs, second], loop)

    # Prologue: stage 0 of the first iteration.
    then = Block()
    m0: dict[SSAValue, SSAValue] = {iv: loop.lb, **dict(zip(iter_args, inits))}
    for o in s0:
        _clone_into(then, o, m0)
    retime_waits(then)
    look = lambda m, v: m.get(v, v)  # noqa: E731
    new_inits = ([look(m0, yields[i]) for i in early] + [look(m0, v) for v in carried]
                 + [inits[i] for i in late_read])

    # Steady state: stage 0 of iteration j with stage 1 of iteration j-1.
    nb = Block(arg_types=[iv.type, *(v.type for v in new_inits)])
    j = nb.args[0]
    j.name_hint = iv.name_hint
    args = list(nb.args[1:])
    e_args, c_args, l_args = args[:len(early)], args[len(early):len(early) + len(carried)], args[len(early) + len(carried):]
    for a, i in zip(e_args, early):
        a.name_hint = iter_args[i].name_hint
    for a, v in zip(c_args, carried):
        a.name_hint = (v.name_hint or "v") + "_prev"
    for a, i in zip(l_args, late_read):
        a.name_hint = (iter_args[i].name_hint or "v") + "_prev"
    m_s0: dict[SSAValue, SSAValue] = {iv: j, **{iter_args[i]: a for i, a in zip(early, e_args)}}
    m_s1: dict[SSAValue, SSAValue] = {**dict(zip(carried, c_args)),
                                      **{iter_args[i]: a for i, a in zip(late_read, l_args)}}
    for s, o in _order(body, stage, late_defs, use_schedule):
        if s == 0:
            _clone_into(nb, o, m_s0)
        else:
            _clone_into(nb, o, m_s1)
            for i in late:
                if body.top(yields[i]) is o:
                    m_s0[iter_args[i]] = m_s1[yields[i]]
    nb.add_op(scf.YieldOp(*[look(m_s0, yields[i]) for i in early], *[look(m_s0, v) for v in carried],
                          *[look(m_s1, yields[i]) for i in late_read]))
    retime_waits(nb)
    steady = scf.ForOp(second.result, loop.ub, loop.step, new_inits, Region(nb))
    steady.attributes[PEELED_ATTR] = IntegerAttr(1, 32)
    then.add_op(steady)
    outs = list(steady.results)
    for r, i in zip(outs, early):
        r.name_hint = loop.results[i].name_hint
    for r, a in zip(outs[len(early):], [*c_args, *l_args]):
        r.name_hint = a.name_hint.replace("_prev", "_last")

    # Epilogue: stage 1 of the last iteration.
    m_e: dict[SSAValue, SSAValue] = {**dict(zip(carried, outs[len(early):len(early) + len(carried)])),
                                     **{iter_args[i]: r for i, r in zip(late_read, outs[len(early) + len(carried):])}}
    for o in s1:
        _clone_into(then, o, m_e)
    retime_waits(then)
    results: list[SSAValue] = [None] * len(yields)  # type: ignore[list-item]
    for r, i in zip(outs, early):
        results[i] = r
    for i in late:
        results[i] = look(m_e, yields[i])
    then.add_op(scf.YieldOp(*results))
    guard = scf.IfOp(runs.result, [r.type for r in loop.results], Region(then), Region(Block([scf.YieldOp(*inits)])))
    parent.insert_op_before(guard, loop)
    for old, new in zip(loop.results, guard.results):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase()
    return steady


@dataclass(frozen=True)
class PipelineCoarsePass(ModulePass):
    """Run a loop's second dot one iteration late, overlapping the next first dot and its softmax."""

    name = "ws-pipeline-coarse"
    # True (run by itself): a remark for every loop left unpipelined, in the pipeliner's terms.
    # False (in ws-specialize / ws-hopper): only where the kernel's schedule (ws.stage) is not
    # followed, said in the kernel author's terms; the heuristic stages are the compiler's own
    detail: bool = True
    # Which wgmma a loop's softmax overlaps without a schedule: pv, the previous tile's P·V
    # (U one iteration late); qk, the next tile's QK^T as well (T one iteration early, U
    # waited for in the next iteration: see `qk_ahead`)
    softmax_overlap: str = "pv"

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.softmax_overlap not in SOFTMAX_OVERLAPS:
            raise WsError(f"{self.name}: softmax-overlap must be {' or '.join(SOFTMAX_OVERLAPS)}, "
                          f"got '{self.softmax_overlap}'", "ws-opt")
        check_schedule(op)  # ws.* attributes are input: validated before they are honoured
        for region in [r for r in op.walk() if isinstance(r, RegionOp)]:
            loops = [o for part in region.partitions for o in part.body.walk()
                     if isinstance(o, scf.ForOp) and PEELED_ATTR not in o.attributes]
            group = [lp for lp in loops if _scheduled(lp)]
            if group:  # the partitions' copies of a scheduled loop, and the other loops that pass tiles
                group += [lp for lp in loops if lp not in group and _passes_tiles(lp)]
                self.run_on_group(group)
            for loop in loops:
                if loop not in group:
                    self.run_on(loop)

    def run_on_group(self, loops: list[scf.ForOp]) -> None:
        """Pipeline the partitions' copies of a scheduled loop by stages that agree (see
        `stages.plan_group`), deepening the rings whose slots live across iterations; or none."""
        for loop in loops:
            if any(isinstance(o, DotOp) for o in loop.body.block.ops):
                PipelineMmaPass(0).pipeline(loop)  # dots become async dots with waits
        try:
            plan = plan_group(loops)
        except NotPipelined as e:
            if self.detail:
                remark(e.loop or loops[0], f"ws-pipeline-coarse: loop not pipelined: {e}; no partition's copy of "
                                           "the loop is pipelined (their steps must agree)")
            else:
                remark(e.loop or loops[0], _schedule_not_followed(e))
            return
        for ring, depth in plan.depths.items():
            deepen(ring, depth)
        for loop, stage in plan.stages.items():
            pipeline(loop, stage, LoopBody(loop), True)

    def run_on(self, loop: scf.ForOp) -> None:
        """Tawa's Algorithm 1 on a loop without a schedule."""
        body = LoopBody(loop)
        try:
            given = tawa_stages(body)
            if given is None:
                if len(dots(body)) >= 2 and self.detail:
                    remark(loop, "ws-pipeline-coarse: no second dot reads work done on the first dot's "
                                 "result (no C stage); the loop is left to ws-pipeline-mma")
                return
            if any(isinstance(o, DotOp) for o in body.ops):
                PipelineMmaPass(0).pipeline(loop)  # T and U become async dots with waits
                body = LoopBody(loop)
                given = tawa_stages(body)
                assert given is not None
            if self.softmax_overlap == "qk":
                given = qk_ahead_stages(body, given)
            stage = complete_stages(body, given)
            check_stages(body, stage)
        except NotPipelined as e:
            if self.detail:
                remark(loop, f"ws-pipeline-coarse: loop not pipelined: {e}")
            return
        if 1 not in stage.values():
            return
        steady = pipeline(loop, stage, body, False)
        if self.softmax_overlap == "qk":
            then = steady.parent_block()
            steady = defer_accumulator_wait(then, steady)
            steady.attributes[QK_AHEAD_ATTR] = IntegerAttr(1, 32)
            retime_waits(steady.body.block)
            retime_waits(then)
            retire_all_at_carried_wait(steady)


def _schedule_not_followed(e: NotPipelined) -> str:
    """Why a scheduled loop is not pipelined, in its author's terms (ws-specialize / ws-hopper)."""
    if e.stages is not None:
        why = (f"in one warp group its ws.stage schedule spans {e.stages[-1] - e.stages[0] + 1} iterations, and loops are "
               f"pipelined over two (stages 0 and 1) only")
    else:
        why = "its ws.stage schedule cannot be followed alike by every warp group's copy of the loop"
    return (f"ws-pipeline-coarse: this loop runs its schedule one iteration at a time, not software-pipelined "
            f"(the same results, without overlapping one iteration's second dot with the next one's first): "
            f"{why}; a schedule of two stages, or none (the heuristic pipeline), is pipelined")


def _scheduled(loop: scf.ForOp) -> bool:
    """A copy of a loop that `ws-schedule` (or the user) staged."""
    return SCHEDULE_ATTR in loop.attributes or any(STAGE_ATTR in o.attributes for o in loop.body.block.ops)


def _passes_tiles(loop: scf.ForOp) -> bool:
    return any(isinstance(o, GetOp | PutOp) for o in loop.body.block.ops)
