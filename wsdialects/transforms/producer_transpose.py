"""`ws-producer-transpose{placement=auto|producer|consumer}`: an 8-bit B that wgmma cannot
read as loaded (an fp8 V in P·V: KxN, N contiguous; fp8 wgmma reads both operands K-major)
is transposed by the producer partition into a ring of its own (FlashAttention-3's
in-kernel V transpose), instead of by the consumers before each dot (ws-stage-operands).

The producer, which otherwise only issues TMA copies, now also waits for each V tile it
loaded, copies it transposed into a slot of a new ring and publishes that slot; the
consumers read V^T from there as a K-major B and never wait on a named barrier for V. The
producer transposes the previous position's tile after issuing the current one's copies
(its loop carries that position), so the copy's latency overlaps the transpose, and the
tile still pending after the loop is transposed there:

    aref.put %aref_v[%j], %v                                 (producer, in its loop)
    %v = aref.get %aref_v[%j_prev] ... mma.async_dot %p8, %v, %acc  (consumer)
    aref.consumed %aref_v[%j_prev]
  ==>
    %aref_v = aref.create : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 2>     (the producer's own)
    %aref_vt = aref.create : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>    (what V's was)
    scf.for ... iter_args(..., %t_pos = %c0, %t_has = %false) {
      aref.put %aref_v[%j], %v
      scf.if %t_has {
        %v_in = aref.get %aref_v[%t_pos]
        %v_in_t = tile.trans %v_in [1, 0]                    (d x keys, keys contiguous)
        aref.put %aref_vt[%t_pos], %v_in_t
        aref.consumed %aref_v[%t_pos]
      }
      scf.yield ..., %j, %true
    }
    scf.if %r#n+1 { ...the same for %r#n... }
    ...
    %vt = aref.get %aref_vt[%j_prev]                         (consumer)
    %v = tile.trans %vt [1, 0]                               (a K-major B: no staging)
    mma.async_dot %p8, %v, %acc ...;  aref.consumed %aref_vt[%j_prev]

The lowering makes the transpose the producer warp group's loads of the slot and stores
into the new ring's slot (ws-lower-layouts' #layout.transpose_copy: ldmatrix.trans, byte
permutes, stmatrix, free of bank conflicts on both 128-byte-swizzled tiles),
fenced for the async proxy and published per thread on the new ring's FULL barrier. The
producer's four warps all run (ws-lead-warp no longer applies), each copying 32 x 16-byte
units one after another. The producer's `regs` are raised to FlashAttention-3's most, 56 (a
128x128 byte tile copied at 48 spills a little under some organisations), as far as the
register file allows with the other partitions giving up at most 8 registers a thread
(232 -> 224). `placement=auto` (the default) chooses the producer where that is at least
the tile's registers a thread plus 16 (addresses, positions, loop state) and the transpose
can lag one tile behind the copies (two V slots or more, puts in a loop); otherwise, and
with `placement=consumer`, nothing changes and ws-stage-operands transposes in the
consumers. `placement=producer` insists (an error where the registers do not allow it). A ring whose
tile is also used otherwise than as such a B, or that carries several tiles, is left to
the consumers. Runs at the end of `ws-specialize` (option `v-transpose`), so ws-hopper's
ring-depth choice counts the new ring.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i1
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from wsdialects.attributes import ctas_per_sm
from wsdialects.aref import ConsumedOp, CreateOp, GetOp, PutOp
from wsdialects.aref.dialect import RingType
from wsdialects.diagnostics import WsError, error_at
from wsdialects.nvgpu.types import register_pool
from wsdialects.tile import TransOp
from wsdialects.warp_group import PartitionOp, enclosing_partition

PLACEMENTS = ("auto", "producer", "consumer")
PRODUCER_MAX_REGS = 56  # FlashAttention-3 gives its producer warp group 24 to 56
OVERHEAD_REGS = 16  # addresses, ring positions, loop state next to the tile
CONSUMER_GIVE = 8  # the registers a thread the other partitions may give up for it


def _dots_b(v: SSAValue) -> bool:
    """Every use of `v` is the B operand of a dot (mma.async_dot or tile.dot)."""
    uses = list(v.uses)
    return bool(uses) and all(u.operation.name in ("mma.async_dot", "tile.dot") and u.index == 1 for u in uses)


@dataclass
class Candidate:
    create: CreateOp
    puts: list[PutOp]
    gets: list[GetOp]
    consumed: list[ConsumedOp]
    producer: PartitionOp


def candidates(module: Operation) -> list[Candidate]:
    """Rings of one 8-bit 2-D tile, put by one partition from TMA loads (tile.desc_load), whose
    every get feeds only dots as their B (KxN as loaded: N contiguous)."""
    out = []
    for c in [o for o in module.walk() if isinstance(o, CreateOp)]:
        rt = c.ring.type
        if len(rt.types) != 1:
            continue
        t = rt.types[0]
        if not isinstance(t, TensorType) or len(t.get_shape()) != 2 or getattr(t.element_type, "bitwidth", 0) != 8:
            continue
        users = [u.operation for u in c.ring.uses]
        puts = [o for o in users if isinstance(o, PutOp)]
        gets = [o for o in users if isinstance(o, GetOp)]
        cons = [o for o in users if isinstance(o, ConsumedOp)]
        if not puts or not gets or len(puts) + len(gets) + len(cons) != len(users):
            continue
        if not all(p.values[0].owner.name == "tile.desc_load" for p in puts):
            continue
        producers = {enclosing_partition(p) for p in puts}
        if len(producers) != 1 or None in producers:
            continue
        producer = next(iter(producers))
        if any(enclosing_partition(g) in (producer, None) for g in gets):
            continue
        if not all(_dots_b(g.values[0]) for g in gets):
            continue
        out.append(Candidate(c, puts, gets, cons, producer))
    return out


def producer_regs_needed(t: TensorType, producer: PartitionOp) -> int:
    """Registers a thread of the producer needs at least to transpose one tile: the tile's
    bytes over its threads, in 32-bit registers, plus OVERHEAD_REGS (rounded up to 8)."""
    n = 1
    for d in t.get_shape():
        n *= d
    regs = -(-n // (producer.warps * 32 * 4)) + OVERHEAD_REGS
    return -(-regs // 8) * 8


def _pool(producer: PartitionOp) -> int:
    """The registers the producer's CTA holds from launch, which the partitions' budgets share."""
    threads = sum(p.warps * 32 for p in [producer, *_others(producer)])
    return register_pool(threads, ctas_per_sm(producer))


def _others(producer: PartitionOp) -> list[PartitionOp]:
    return [p for p in producer.parent_op().walk() if isinstance(p, PartitionOp) and p is not producer]


def producer_regs_available(producer: PartitionOp, give: int = CONSUMER_GIVE) -> int:
    """The most registers a thread the producer may take (at most PRODUCER_MAX_REGS, a multiple
    of 8) in the registers its CTA holds from launch, beside the other partitions' `regs`, each
    lowered by up to `give`."""
    others = sum(p.warps * 32 * max(0, (p.regs.value.data if p.regs is not None else 0) - give)
                 for p in _others(producer))
    left = (_pool(producer) - others) // (producer.warps * 32) // 8 * 8
    return min(left, PRODUCER_MAX_REGS)


def give_producer(producer: PartitionOp, regs: int) -> None:
    """Set the producer's `regs`; where the partitions then exceed what the CTA holds, lower
    the others' by 8 (at most CONSUMER_GIVE in all)."""
    producer.regs = IntegerAttr(regs, 32)
    file = _pool(producer)
    for _ in range(CONSUMER_GIVE // 8):
        parts = [producer, *_others(producer)]
        if sum(p.warps * 32 * (p.regs.value.data if p.regs is not None else 0) for p in parts) <= file:
            return
        for p in _others(producer):
            if p.regs is not None and p.regs.value.data > 24:
                p.regs = IntegerAttr(p.regs.value.data - 8, 32)


def _transpose_ops(c: Candidate, v_ring: SSAValue, vt_ring: SSAValue, pos: SSAValue) -> list[Operation]:
    get = GetOp(v_ring, pos)
    get.results[0].name_hint = "v_in"
    tr = TransOp(get.results[0])
    tr.result.name_hint = "v_in_t"
    return [get, tr, PutOp(vt_ring, pos, [tr.result]), ConsumedOp(v_ring, pos)]


def _if(cond: SSAValue, ops: list[Operation]) -> scf.IfOp:
    body = Block()
    body.add_ops([*ops, scf.YieldOp()])
    return scf.IfOp(cond, [], Region(body), Region(Block([scf.YieldOp()])))


def _lagged(c: Candidate, put: PutOp, v_ring: SSAValue, vt_ring: SSAValue) -> None:
    """Transpose the previous iteration's tile after `put` (in the body of an scf.for) and the
    last one after the loop: the loop carries (position, whether there is one)."""
    loop = put.parent_op()
    body = put.parent_block()
    yld = body.last_op
    pos_t = put.position.type
    init_pos = arith.ConstantOp(IntegerAttr(0, pos_t))
    init_has = arith.ConstantOp(IntegerAttr(0, i1))
    loop.parent_block().insert_ops_before([init_pos, init_has], loop)
    t_pos = body.insert_arg(pos_t, len(body.args))
    t_has = body.insert_arg(i1, len(body.args))
    t_pos.name_hint, t_has.name_hint = "t_pos", "t_has"
    body.insert_op_after(_if(t_has, _transpose_ops(c, v_ring, vt_ring, t_pos)), put)
    true = arith.ConstantOp(IntegerAttr(1, i1))
    body.insert_op_before(true, yld)
    new_yield = scf.YieldOp(*yld.operands, put.position, true.result)
    body.insert_op_before(new_yield, yld)
    yld.detach()
    yld.erase()
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, init_pos.result, init_has.result],
                    loop.detach_region(loop.body))
    new.attributes.update(loop.attributes)
    loop.parent_block().insert_op_before(new, loop)
    for old, res in zip(loop.results, new.results):
        old.replace_all_uses_with(res)
    loop.detach()
    loop.erase()
    n = len(new.results)
    new.parent_block().insert_op_after(_if(new.results[n - 1], _transpose_ops(c, v_ring, vt_ring, new.results[n - 2])),
                                       new)


def _ring(depth: int, t, consumers: int | None, name: str, like: CreateOp) -> CreateOp:
    c = CreateOp(RingType([t], depth), consumers)
    c.ring.name_hint = name
    c.location = like.location
    like.parent_block().insert_op_after(c, like)
    return c


def lagged(c: Candidate) -> bool:
    """The producer can transpose each tile one iteration late (overlapping the next copy): the
    ring has two slots or more and every put is in a loop's body."""
    return c.create.ring.type.depth.data >= 2 and all(
        p.parent_op() is not None and p.parent_op().name == "scf.for" for p in c.puts)


def move_to_producer(c: Candidate) -> None:
    """Rewrite one ring: the producer transposes each tile into a new ring the consumers read."""
    rt = c.create.ring.type
    t = rt.types[0]
    depth = rt.depth.data
    name = c.create.ring.name_hint or "ring"
    lag = lagged(c)
    vt_t = TensorType(t.element_type, list(reversed(t.get_shape())))
    vt = _ring(depth, vt_t, c.create.num_consumers if c.create.consumers is not None else None, f"{name}t", c.create)
    own = _ring(2 if lag else depth, t, None, name, c.create)  # the producer's own: one copy ahead of the transpose
    for g in c.gets:
        new = GetOp(vt.ring, g.position)
        new.results[0].name_hint = (g.values[0].name_hint or "v") + "t"
        tr = TransOp(new.results[0])
        tr.result.name_hint = g.values[0].name_hint
        g.parent_block().insert_ops_before([new, tr], g)
        g.values[0].replace_all_uses_with(tr.result)
        g.detach()
        g.erase()
    for o in c.consumed:
        o.parent_block().insert_op_before(ConsumedOp(vt.ring, o.position), o)
        o.detach()
        o.erase()
    c.create.ring.replace_all_uses_with(own.ring)
    c.create.detach()
    c.create.erase()
    for p in c.puts:
        if lag:
            _lagged(c, p, own.ring, vt.ring)
        else:
            p.parent_block().insert_ops_after(_transpose_ops(c, own.ring, vt.ring, p.position), p)


def transpose_in_producer(module: ModuleOp, placement: str = "auto") -> int:
    """Apply the pass; returns how many rings the producer now transposes."""
    if placement not in PLACEMENTS:
        raise WsError(f"ws-producer-transpose: placement must be auto, producer or consumer, got '{placement}'",
                      "ws-opt")
    if placement == "consumer":
        return 0
    moved = 0
    for c in candidates(module):
        need = producer_regs_needed(c.create.ring.type.types[0], c.producer)
        have = c.producer.regs.value.data if c.producer.regs is not None else 0
        target = max(have, producer_regs_available(c.producer))
        if need > target:
            if placement == "producer":
                raise error_at(c.puts[0].values[0].owner,
                               f"ws-producer-transpose: the producer would need {need} registers a thread to "
                               f"transpose this tile, more than the {target} the register file leaves it "
                               f"(use placement=consumer)")
            continue
        if placement == "auto" and not lagged(c):
            continue  # no copy to overlap the transpose with: the consumers' staging does as well
        if target > have:
            give_producer(c.producer, target)
        move_to_producer(c)
        moved += 1
    return moved


@dataclass(frozen=True)
class ProducerTransposePass(ModulePass):
    """An 8-bit N-contiguous B (fp8 V) is transposed by the producer into a ring of its own."""

    name = "ws-producer-transpose"
    placement: str = "auto"

    def apply(self, ctx, op: ModuleOp) -> None:
        transpose_in_producer(op, self.placement)
