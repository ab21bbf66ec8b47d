"""`ws-pipeline-coarse{softmax-overlap=qk}`: the first dot one iteration ahead.

The default form (`softmax-overlap=pv`, Tawa's Algorithm 1 and FlashAttention-3's
code) runs the second dot U one iteration late: the softmax C_j runs while U_{j-1}
(P_{j-1} V_{j-1}) is in flight, and waits first for T_j = Q K_j^T, issued just before
it. This form runs the first dot T one iteration early instead: T_{j+1} is issued
before the softmax of S_j, so the softmax runs while the tensor core computes the next
scores, and U_j (issued after it) is waited for only in the next iteration, where its
result is first read (the rescale of O), behind T_{j+2}'s issue:

    prologue  T_0; wait T_0
    loop j    issue T_{j+1}; C_j (softmax of S_j); wait U_{j-1} and T_{j+1} (pending = 0);
              release V_{j-1}; O *= alpha_j; issue U_j; wait T_{j+1} (pending = 1: a no-op)
    epilogue  C_{N-1}; wait U_{N-2}; release V_{N-2}; issue U_{N-1}; wait

The wait for the carried U_{j-1} retires T_{j+1} too (pending = 0, not 1): T_{j+1} was
issued before the softmax and has had its time, and ptxas proves a read of an
accumulator that crossed the back edge in flight safe only behind a `wait_group 0`
(with 1 it serializes the whole wgmma pipeline, C7514). The softmax then runs beside
T_{j+1}, U_{j-1} and its register A (P_{j-1}): at d 64 (O 32 registers a thread) this
fits a ping-pong consumer's 240 registers; at d 128 ptxas needs more than 240 and
serializes the wgmmas (C7512, reported by `-t ptx`), while waiting for U_{j-1} before
the softmax (P_{j-1} dead) still does not fit and stalls on U_{j-1}.

Two score tiles are live during the softmax (S_j in registers, S_{j+1} accumulating)
beside O: 3 x 64 f32 registers per thread at 64 x 128 per warp group, the register
budget FlashAttention-3's 240-register consumers have. The accumulator of U crosses
the back edge in flight (an iter_arg), and the release of the slot U reads moves with
its wait: the loop carries the slot's position and whether one is held (none before
the first U).

    %o = mma.async_dot %p16, %v, %acc_s           %o0 = mma.wait %acc {pending = 0}   // U_{j-1}
    %ow = mma.wait %o {pending = 0}       ==>     scf.if %held { aref.consumed %rv[%pos_prev] }
    aref.consumed %rv[%j_prev]                    %acc_s = arith.mulf %o0, ...
    scf.yield ..., %ow                            %o = mma.async_dot %p16, %v, %acc_s
                                                  scf.yield ..., %o, %j_prev, %true
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i1
from xdsl.ir import Block, Operation, Region, SSAValue

from wsdialects.aref import ConsumedOp, GetOp
from wsdialects.mma import AsyncDotOp, WaitOp
from wsdialects.transforms.borrowed_tiles import borrowed, users_in
from wsdialects.transforms.stages import SLOT_VIEWS, LoopBody, wait_of

SOFTMAX_OVERLAPS = ("pv", "qk")


def qk_ahead_stages(body: LoopBody, tawa: dict[Operation, int]) -> dict[Operation, int]:
    """From Algorithm 1's stages (T and C in stage 0, U in stage 1): T and its wait alone
    in stage 0, everything Algorithm 1 placed (C, U and what follows) in stage 1. The
    other ops (slot gets, views, releases, index arithmetic) are placed by
    `stages.complete_stages`."""
    t = next(o for o, s in tawa.items() if s == 0 and isinstance(o, AsyncDotOp)
             and not any(d in tawa and isinstance(d, AsyncDotOp) for d in body.backward(o) - {o}))
    t_done = wait_of(body, t)
    return {o: 0 if o in (t, t_done) else 1 for o in tawa}


def _first_user(block: Block, value: SSAValue) -> Operation | None:
    """The op of `block` that first (in block order) reads `value`, directly or inside a region."""
    for o in block.ops:
        if any(v is value for inner in o.walk() for v in inner.operands):
            return o
    return None


def _const(value: int, t) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, t))


def defer_accumulator_wait(then: Block, steady: scf.ForOp) -> scf.ForOp:
    """Keep the last dot of `steady` (U) in flight across the back edge: its wait moves to
    the first read of its accumulator in the next iteration (after the loop: to the first
    read in `then`), and the release of the slots it reads moves behind that wait. Returns
    the rebuilt loop (`steady` itself where there is no such dot)."""
    block = steady.body.block
    yield_op = block.last_op
    waits = [o for o in block.ops if isinstance(o, WaitOp)]
    if not waits:
        return steady
    w = waits[-1]
    u = w.operands[0].owner if len(w.operands) == 1 else None
    if not (isinstance(u, AsyncDotOp) and u.parent_block() is block and len(list(u.result.uses)) == 1):
        return steady
    uses = list(w.outputs[0].uses)
    if len(uses) != 1 or uses[0].operation is not yield_op:
        return steady
    index = uses[0].index
    carried = block.args[1 + index]
    if u.acc is not carried and not _reads_through_pure(block, u.acc, carried):
        return steady  # U accumulates on something else: leave it
    after_w = list(block.ops)[list(block.ops).index(w) + 1:-1]
    releases = []
    for o in after_w:
        if isinstance(o, ConsumedOp):
            gets = [g for g in block.ops if isinstance(g, GetOp) and g.ring is o.ring and g.position is o.position]
            if gets and u in users_in(block, borrowed(block, gets[0], SLOT_VIEWS)):
                releases.append(o)
    if any(not isinstance(o, ConsumedOp) for o in after_w) or len(releases) != len(after_w):
        return steady  # something else waits for U here: leave the loop as it is

    # The loop carries, per release, the slot's position, and whether a slot is held.
    t_flag = i1
    false, true = _const(0, t_flag), _const(1, t_flag)
    false.result.name_hint, true.result.name_hint = "none_held", "held_now"
    inits = list(steady.iter_args)
    parent = steady.parent_block()
    parent.insert_ops_before([false], steady)
    pos_args = []
    for c in releases:
        arg = block.insert_arg(c.position.type, len(block.args))
        arg.name_hint = (c.position.name_hint or "pos") + "_held"
        pos_args.append(arg)
        zero = _const(0, c.position.type)  # never read: no slot is held before the first U
        parent.insert_ops_before([zero], steady)
        inits.append(zero.result)
    flag = block.insert_arg(t_flag, len(block.args))
    flag.name_hint = "held"
    inits.append(false.result)

    # In the iteration: wait for the carried U before its first read, then release its slots.
    early = WaitOp([carried], 0)
    early.outputs[0].name_hint = carried.name_hint
    block.insert_op_before(early, _first_user(block, carried))
    carried.replace_uses_with_if(early.outputs[0], lambda use: use.operation is not early)
    anchor: Operation = early
    for c, arg in zip(releases, pos_args):
        c.detach()
        guard = scf.IfOp(flag, [], Region(Block([ConsumedOp(c.ring, arg), scf.YieldOp()])))
        block.insert_op_after(guard, anchor)
        anchor = guard
    # U's result crosses the back edge in flight.
    block.insert_op_before(true, yield_op)
    yield_op.operands = [*yield_op.operands[:index], u.result, *yield_op.operands[index + 1:],
                         *(c.position for c in releases), true.result]
    w.detach()
    w.erase()

    # The rebuilt loop and, after it, the wait and the releases of the last U.
    new = scf.ForOp(steady.lb, steady.ub, steady.step, inits, steady.detach_region(steady.body))
    new.attributes.update(steady.attributes)
    parent.insert_op_before(new, steady)
    for old_r, new_r in zip(steady.results, new.results):
        new_r.name_hint = old_r.name_hint
        old_r.replace_all_uses_with(new_r)
    steady.detach()
    steady.erase()
    n = len(new.results)
    last_pos, last_flag = new.results[n - 1 - len(releases):n - 1], new.results[n - 1]
    for r, c in zip(last_pos, releases):
        r.name_hint = (c.position.name_hint or "pos") + "_last"
    last_flag.name_hint = "held_last"
    out = new.results[index]
    ops_after = list(parent.ops)[list(parent.ops).index(new) + 1:]
    first_after = next((o for o in ops_after if any(v is out for inner in o.walk() for v in inner.operands)), None)
    late = WaitOp([out], 0)
    late.outputs[0].name_hint = out.name_hint
    release_last = [scf.IfOp(last_flag, [], Region(Block([ConsumedOp(c.ring, r), scf.YieldOp()])))
                    for c, r in zip(releases, last_pos)]
    if first_after is None:
        parent.insert_ops_after([late, *release_last], new)
    else:
        parent.insert_ops_before([late, *release_last], first_after)
    out.replace_uses_with_if(late.outputs[0], lambda use: use.operation is not late)
    for c in releases:
        c.erase()
    return new


def _reads_through_pure(block: Block, value: SSAValue, source: SSAValue) -> bool:
    """Whether `value` is computed in `block` from `source` by arith ops (O's rescale)."""
    work, seen = [value], set()
    while work:
        v = work.pop()
        if v is source:
            return True
        o = v.owner
        if isinstance(o, Operation) and o.parent_block() is block and o.dialect_name() == "arith" and o not in seen:
            seen.add(o)
            work.extend(o.operands)
    return False



def retire_all_at_carried_wait(steady: scf.ForOp) -> None:
    """Make the wait for the carried accumulator (the first `mma.wait` of a block argument)
    retire every wgmma in flight (see the module doc)."""
    block = steady.body.block
    for o in block.ops:
        if isinstance(o, WaitOp) and any(v in block.args for v in o.operands):
            o.properties["pending"] = IntegerAttr(0, 32)
            return
