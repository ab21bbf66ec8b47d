"""`ws-pipeline-mma{depth=P}`: fine-grained MMA pipelining (Tawa §III-D1).

In each loop of a partition, `tile.dot` becomes `mma.async_dot`. When every dot
of the loop only accumulates (its accumulator is an iter_arg and its result is
only yielded back), up to P iterations of dots stay in flight: one `mma.wait
{pending = P·dots}` after the dots, the aref slots they read are released P
iterations late (`consumed` of iteration k-P), and the last P are drained after
the loop, behind a `mma.wait {pending = 0}`. P = 0 means no overlap: each async
dot is waited for at once, as are the dots of a loop that reads a ring at
more than one position per iteration (its releases stay where they are). P must
stay below the ring depth: P dots in flight hold P+1 slots.

A loop that `ws-schedule` keeps in one stage (every `ws.stage` 0) with other dots
beside its accumulating ones (a fused MLP: `h = relu(x·w1)`, `acc += h·w2`) keeps
the accumulating dots in flight across the back edge, as the schedule's model
does (their only reader is the next iteration's dot on the same accumulator): the
other dots are waited for at once, and that wait, `pending = 0`, retires the
previous iteration's accumulation too (wgmma groups complete in order), so its
slots are released one iteration late (P = 1) and the last after the loop.

    %a, %b = aref.get %r[%k]                       %a, %b = aref.get %r[%k]
    %d = tile.dot %a, %bt, %acc            ==>     %d = mma.async_dot %a, %bt, %acc
    aref.consumed %r[%k]                           %w = mma.wait %d {pending = 1}
    scf.yield %d                                   scf.if %k >= 1 { aref.consumed %r[%k - 1] }
                                                   scf.yield %w
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Region, SSAValue
from xdsl.passes import ModulePass

from wsdialects.aref import ConsumedOp, GetOp, RingType
from wsdialects.diagnostics import WsError, error_at
from wsdialects.mma import AsyncDotOp, WaitOp
from wsdialects.tile import DotOp
from wsdialects.transforms.borrowed_tiles import borrowed, users_in
from wsdialects.transforms.partition import SCHEDULE_ATTR, STAGE_ATTR
from wsdialects.transforms.ring_positions import index_and_base
from wsdialects.transforms.trip_count import trip_count
from wsdialects.warp_group import PartitionOp


def _const(value: int, t) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, t))


def is_accumulation(dot: DotOp, loop: scf.ForOp) -> bool:
    """acc is an iter_arg and the result only flows back to the same iter_arg."""
    acc = dot.acc
    if not (isinstance(acc, BlockArgument) and acc.block is loop.body.block and acc.index > 0):
        return False
    uses = list(dot.result.uses)
    yield_op = loop.body.block.last_op
    return (len(uses) == 1 and uses[0].operation is yield_op
            and uses[0].index == acc.index - 1 and len(list(acc.uses)) == 1)


def _deferred_rings(body: Block, gets: list[GetOp], dots: list[DotOp]) -> dict[SSAValue, tuple[GetOp, ConsumedOp]]:
    """The rings whose release can wait for the dots, each with its first get and
    its one `consumed`: only dots (and views) read the ring's tiles, and the loop
    body reads one position of it -- however many gets -- and releases it once."""
    out: dict[SSAValue, tuple[GetOp, ConsumedOp]] = {}
    for ring in dict.fromkeys(g.ring for g in gets):
        mine = [g for g in gets if g.ring is ring]
        releases = [c for c in body.ops if isinstance(c, ConsumedOp) and c.ring is ring]
        if len(releases) != 1 or any(g.position is not releases[0].position for g in mine):
            continue
        users = [u for g in mine for u in users_in(body, borrowed(body, g))]
        if any(u in dots for u in users) and all(isinstance(u, DotOp) or u.name == "tile.trans" for u in users):
            out[ring] = (mine[0], releases[0])
    return out


def _one_stage(loop: scf.ForOp) -> bool:
    """Whether ws-schedule scheduled `loop` and kept all of it in one stage."""
    return SCHEDULE_ATTR in loop.attributes and all(
        o.attributes[STAGE_ATTR].value.data == 0 for o in loop.body.block.ops if STAGE_ATTR in o.attributes)


@dataclass(frozen=True)
class PipelineMmaPass(ModulePass):
    """Issue dots asynchronously and keep `depth` iterations of them in flight."""

    name = "ws-pipeline-mma"
    depth: int = 2

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.depth < 0:
            raise WsError(f"ws-pipeline-mma: depth must be >= 0, got {self.depth}", "ws-opt")
        for part in [p for p in op.walk() if isinstance(p, PartitionOp)]:
            for loop in [o for o in part.body.walk() if isinstance(o, scf.ForOp)]:
                if any(isinstance(o, DotOp) for o in loop.body.block.ops):
                    self.pipeline(loop)

    def pipeline(self, loop: scf.ForOp) -> None:
        body = loop.body.block
        dots = [o for o in body.ops if isinstance(o, DotOp)]
        gets = [o for o in body.ops if isinstance(o, GetOp)]
        deferred = _deferred_rings(body, gets, dots)
        read_by_dots = {g.ring for g in gets for d in dots if d in users_in(body, borrowed(body, g))}
        acc = [d for d in dots if is_accumulation(d, loop)]
        mixed = _one_stage(loop) and 0 < len(acc) < len(dots) and self.depth > 0
        if mixed:  # only the accumulating dots' rings are released late
            deferred = {r: v for r, v in deferred.items()
                        if all(d in acc for d in dots if d in users_in(body, borrowed(body, v[0])))}
            read_by_dots = {g.ring for g in gets for d in acc if d in users_in(body, borrowed(body, g))}
        overlap = self.depth > 0 and (mixed or len(acc) == len(dots)) and read_by_dots <= set(deferred)
        new_dots = []
        for d in dots:
            a = AsyncDotOp(d.a, d.b, d.acc)
            a.result.name_hint = d.result.name_hint
            a.attributes.update({k: v for k, v in d.attributes.items() if k.startswith("ws.")})
            a.location = d.location
            body.insert_op_after(a, d)
            d.result.replace_all_uses_with(a.result)
            d.detach()
            d.erase()
            new_dots.append(a)
        kept = [a for d, a in zip(dots, new_dots) if overlap and (not mixed or d in acc)]
        for a in new_dots:
            if a not in kept:  # P = 0: no dot outlives its own iteration step
                w = WaitOp([a.result], 0)
                body.insert_op_after(w, a)
                a.result.replace_uses_with_if(w.outputs[0], lambda u, w=w: u.operation is not w)
        if not kept:
            return
        new_dots = kept
        P = 1 if mixed else self.depth
        for ring, (g, _) in deferred.items():
            depth = ring.type.depth.data if isinstance(ring.type, RingType) else 1
            if P >= depth:
                raise error_at(g, f"ws-pipeline-mma: depth {P} must be smaller than the aref ring depth "
                                  f"{depth} (P dots in flight hold P+1 slots)")
        wait = WaitOp([a.result for a in new_dots], P * len(new_dots))
        body.insert_op_after(wait, new_dots[-1])
        for a, out in zip(new_dots, wait.outputs):
            out.name_hint = a.result.name_hint
            a.result.replace_uses_with_if(out, lambda u: u.operation is not wait)
        # Release slot k-P once iteration k's wait has retired iteration k-P's dots.
        for ring, (g, old) in deferred.items():
            pos = g.position
            t = pos.type
            c = _const(P, t)
            ge = arith.CmpiOp(index_and_base(pos, loop)[0], c.result, "sge")
            prev = arith.SubiOp(pos, c.result)
            c.result.name_hint, ge.result.name_hint, prev.result.name_hint = "lag", "retired", "prev"
            release = scf.IfOp(ge.result, [], Region(Block([ConsumedOp(ring, prev.result), scf.YieldOp()])))
            body.insert_ops_after([c, ge, prev, release], wait)
            old.detach()
            old.erase()
        # After the loop: retire everything, then release the last P slots.
        results = [loop.results[d.acc.index - 1] for d in new_dots]
        final = WaitOp(results, 0)
        loop.parent_block().insert_op_after(final, loop)
        for r, out in zip(results, final.outputs):
            out.name_hint = r.name_hint
            r.replace_uses_with_if(out, lambda u: u.operation is not final)
        count_ops, n = trip_count(loop)
        t = loop.lb.type
        pc, zero, one = _const(P, t), _const(0, t), _const(1, t)
        start0 = arith.SubiOp(n, pc.result)
        start = arith.MaxSIOp(start0.result, zero.result)
        start.result.name_hint = "drain_from"
        drain_body = Block(arg_types=[t])
        j = drain_body.args[0]
        j.name_hint = "j"
        for ring, (g, _) in deferred.items():
            base = index_and_base(g.position, loop)[1]
            if base is None:
                drain_body.add_op(ConsumedOp(ring, j))
                continue
            at = arith.AddiOp(base, j)
            at.result.name_hint = "pos"
            drain_body.add_ops([at, ConsumedOp(ring, at.result)])
        drain_body.add_op(scf.YieldOp())
        drain = scf.ForOp(start.result, n, one.result, [], Region(drain_body))
        final.parent_block().insert_ops_after([*count_ops, pc, zero, one, start0, start, drain], final)
