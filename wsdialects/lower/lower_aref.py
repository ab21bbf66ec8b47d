"""`ws-lower-aref`: aref rings -> mbarriers, shared-memory slots and TMA (Tawa §III-E).

A ring of depth D with payload tiles T_1..T_n becomes one shared-memory buffer per
payload (`memref<D x T_i, 3>`), a FULL and an EMPTY mbarrier per slot, initialized
before the warp groups start (`fence.mbarrier_init`, then a CTA barrier). Ring
position k uses slot s = k mod D and parity p = (k / D) & 1:

    aref.put %r[%k], %a, %b          nvgpu.mbarrier.try_wait.parity %empty[%s], %p ^ 1
      (%a, %b TMA-loaded)      ==>   nvgpu.mbarrier.arrive_expect_tx %full[%s] bytes |a|+|b|
                                     nvgpu.tma.async_load %a_desc[..] -> %buf0[%s], %full[%s]
                                     nvgpu.tma.async_load %b_desc[..] -> %buf1[%s], %full[%s]
    %a, %b = aref.get %r[%k]   ==>   nvgpu.mbarrier.try_wait.parity %full[%s], %p
                                     %a = nvgpu.smem.view %buf0[%s] ...
    aref.consumed %r[%k]       ==>   nvgpu.mbarrier.arrive %empty[%s] per_warp
                                     (per_thread for a computed payload)

A payload tile that is not a TMA load (a computed tile) is written by the putting
warps (`nvgpu.smem.store`), fenced for the async proxy (`nvgpu.fence.proxy_async`,
wgmma and TMA stores read shared memory through it) and published by every putting
thread (`per_thread`: each thread publishes its own stores). FULL expects one arrival
for the TMA part (its bytes complete the phase) plus one per putting thread for a
computed part; EMPTY one per warp of the partitions that release the ring, or one per
thread where a payload is computed (its readers may load it element by element; each
thread releases its own loads), except where the payload is a copy of another ring's slot
that only wgmma reads (one per warp). Lane 0 arriving for its warp after a warp barrier is
enough under PTX's memory model, but compute-sanitizer's racecheck reports every
other lane's accesses as races (tools/probes/sanitizer_probes.cu reproduces it): hence one
arrival per thread where a payload is computed. ws-pipeline-mma already places `consumed` after
the wgmma reading the slot has retired.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType, ModuleOp, TensorType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.aref import ConsumedOp, CreateOp, GetOp, PutOp
from wsdialects.diagnostics import error_at
from wsdialects.nvgpu.barriers import arrivals
from wsdialects.nvgpu import (
    STAGING_ATTR,
    SMEM_SPACE,
    FenceMBarrierInitOp,
    FenceProxyAsyncOp,
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierCreateOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
    SmemAllocOp,
    SmemStoreOp,
    SmemViewOp,
    TmaAsyncLoadOp,
)
from wsdialects.attributes import ctas_per_sm
from wsdialects.nvgpu.types import smem_per_cta
from wsdialects.nvvm import BarrierOp
from wsdialects.tile import DescLoadOp
from wsdialects.warp_group import enclosing_partition


def tile_bytes(t: TensorType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    et = t.element_type
    bits = et.width.data if isinstance(et, IntegerType) else et.bitwidth
    return n * max(1, bits // 8)


def _is_tma(v: SSAValue, put: PutOp) -> bool:
    """A payload the put can issue as a TMA copy: a desc_load used by this put only, in its block."""
    o = v.owner
    return (isinstance(o, DescLoadOp) and o.parent_block() is put.parent_block()
            and all(u.operation is put for u in o.result.uses))


def loads_into_registers(module: Operation) -> list[DescLoadOp]:
    """The desc_loads that do not become a put's TMA copy into its slot: the lowering loads
    them through a staging buffer of their own (and an mbarrier) into registers."""
    return [o for o in module.walk() if isinstance(o, DescLoadOp)
            and not any(isinstance(u.operation, PutOp) and _is_tma(o.result, u.operation) for u in o.result.uses)]


def _check_fits(rt, put: PutOp) -> None:
    """The ring's slots fit in shared memory (so a slot's TMA bytes also fit one
    `arrive_expect_tx`, whose count is below 2^20): else an error at the op that
    computes the first payload (a user's tile.desc_load), before any IR is built."""
    slot = sum(tile_bytes(t) for t in rt.types)
    ring = rt.depth.data * sum((tile_bytes(t) + 1023) // 1024 * 1024 for t in rt.types)
    ctas = ctas_per_sm(put)
    limit = smem_per_cta(ctas)
    if ring <= limit:
        return
    at = next((v.owner for v in put.values if isinstance(v.owner, Operation)), put)
    what = ", ".join(str(t) for t in rt.types)
    if slot > limit:
        why, hint = f"one slot ({what}) holds {slot} bytes", ""
    else:
        why = f"{rt.depth.data} slots of {what} take {ring} bytes"
        hint = " (give ws-distribute a smaller depth; ws-hopper picks the deepest ring that fits)"
    raise error_at(at, f"ws-lower-aref: this tile's aref ring does not fit in shared memory: {why}, more than "
                       f"the {limit} bytes a block can have{' at %d CTAs per SM' % ctas if ctas > 1 else ''}{hint}")


@dataclass
class _Ring:
    create: CreateOp
    depth: int
    bufs: list[SSAValue]
    full: SSAValue
    empty: SSAValue
    tma: list[bool]
    release: str  # how the releasing warps arrive on EMPTY (`_release_scope`)


def _generic_scope(tma: list[bool]) -> str:
    """How threads arrive on a ring's barriers around their own shared-memory accesses: a
    computed payload is stored, and may be loaded, element by element, so every thread
    publishes its own stores and releases its own loads (`per_thread`); a ring that only TMA
    fills is released by lane 0 of each warp (`per_warp`)."""
    return "per_warp" if all(tma) else "per_thread"


def _read_by_wgmma(v: SSAValue) -> bool:
    """Every use of the slot tile `v` is a dot's operand (through `tile.trans`): wgmma reads it."""
    for u in v.uses:
        o = u.operation
        if o.name == "tile.trans":
            if not _read_by_wgmma(o.results[0]):
                return False
        elif not (o.name in ("tile.dot", "mma.async_dot") and u.index < 2):
            return False
    return True


def _slot_copy(v: SSAValue) -> bool:
    """`v` is a slot's tile read back through `tile.trans` (a transposing copy between rings:
    ws-producer-transpose's V^T), not a tile the threads computed."""
    o = v.owner
    while isinstance(o, Operation) and o.name == "tile.trans":
        o = o.operands[0].owner
    return isinstance(o, GetOp)


def _release_scope(tma: list[bool], puts: list[PutOp], gets: list[GetOp]) -> str:
    """How the releasing warps arrive on EMPTY: as `_generic_scope`, except that a ring of
    slot copies (`_slot_copy`) that only wgmma reads is released by lane 0 of each warp, as a
    TMA-filled one: its warps waited for the wgmma groups that read it, and no thread loaded it."""
    if all(_slot_copy(v) for p in puts for v in p.values) and all(_read_by_wgmma(v) for g in gets for v in g.values):
        return "per_warp"
    return _generic_scope(tma)


def _const(v: int, before: Operation) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(v, i32))
    before.parent_block().insert_op_before(c, before)
    return c.result


def _emit(ops: list[Operation], before: Operation) -> None:
    before.parent_block().insert_ops_before(ops, before)


def _as_i32(v: SSAValue, before: Operation) -> SSAValue:
    if v.type == i32:
        return v
    if isinstance(v.type, IndexType):
        c = arith.IndexCastOp(v, i32)
    elif isinstance(v.type, IntegerType) and v.type.width.data > 32:
        c = arith.TruncIOp(v, i32)
    else:
        raise error_at(before, f"ring position / coordinate of type {v.type} cannot be lowered (need i32, i64 or index)")
    _emit([c], before)
    return c.results[0]


def _slot_parity(ring: _Ring, pos: SSAValue, at: Operation) -> tuple[SSAValue, SSAValue]:
    pos = _as_i32(pos, at)
    d = _const(ring.depth, at)
    one = _const(1, at)
    slot = arith.RemUIOp(pos, d)
    npass = arith.DivUIOp(pos, d)
    par = arith.AndIOp(npass.result, one)
    slot.result.name_hint, par.result.name_hint = "slot", "parity"
    _emit([slot, npass, par], at)
    return slot.result, par.result


class LowerAref:
    def __init__(self, func: Operation):
        self.func = func
        self.rings: dict[SSAValue, _Ring] = {}

    def run(self) -> None:
        creates = [o for o in self.func.walk() if isinstance(o, CreateOp)]
        if not creates:
            return
        for c in creates:
            if c.parent_op() is not self.func:
                raise error_at(c, "ws-lower-aref: aref rings must be created at the kernel's top level")
        uses: dict[SSAValue, list[Operation]] = {c.ring: [] for c in creates}
        for o in self.func.walk():
            if isinstance(o, (PutOp, GetOp, ConsumedOp)) and o.ring in uses:
                uses[o.ring].append(o)
        last = creates[-1]
        after = last.next_op
        for c in creates:
            self.plan(c, uses[c.ring], after)
        _emit([FenceMBarrierInitOp(), BarrierOp(0)], after)
        for ring, ops in uses.items():
            for o in ops:
                if isinstance(o, PutOp):
                    self.put(o)
                elif isinstance(o, GetOp):
                    self.get(o)
                else:
                    self.consumed(o)
        for c in creates:
            c.detach()
            c.erase()

    def plan(self, c: CreateOp, ops: list[Operation], at: Operation) -> None:
        rt = c.ring.type
        depth = rt.depth.data
        hint = c.ring.name_hint or "ring"
        puts = [o for o in ops if isinstance(o, PutOp)]
        if not puts:
            raise error_at(c, "ws-lower-aref: aref ring is never put into")
        tma = [all(_is_tma(p.values[i], p) for p in puts) for i in range(len(rt.types))]
        putters = {enclosing_partition(p) for p in puts}
        if len(putters) != 1 or None in putters:
            raise error_at(puts[0], "ws-lower-aref: all puts of a ring must be in one warp_group.partition")
        putter = next(iter(putters))
        releasers = {enclosing_partition(o) for o in ops if isinstance(o, ConsumedOp)}
        if not releasers:
            raise error_at(c, "ws-lower-aref: aref ring is never released (no aref.consumed): cannot size its "
                              "EMPTY barrier")
        if None in releasers:
            raise error_at(c, "ws-lower-aref: aref.consumed outside a warp_group.partition")
        _check_fits(rt, puts[0])
        full_count = (1 if any(tma) else 0) + (arrivals("per_thread", putter.warps) if not all(tma) else 0)
        release = _release_scope(tma, puts, [o for o in ops if isinstance(o, GetOp)])
        empty_count = sum(arrivals(release, p.warps) for p in releasers)
        new: list[Operation] = []
        bufs = []
        for i, t in enumerate(rt.types):
            alloc = SmemAllocOp(MemRefType(t.element_type, [depth, *t.get_shape()], memory_space=IntegerAttr(SMEM_SPACE, 64)))
            alloc.result.name_hint = f"{hint}_buf{i}"
            if STAGING_ATTR in c.attributes:  # ws-stage-in-slot: a TMA store stages its tile here
                alloc.attributes[STAGING_ATTR] = c.attributes[STAGING_ATTR]
            new.append(alloc)
            bufs.append(alloc.result)
        full, empty = MBarrierCreateOp(depth), MBarrierCreateOp(depth)
        full.result.name_hint, empty.result.name_hint = f"{hint}_full", f"{hint}_empty"
        new += [full, empty]
        _emit(new, at)
        for s in range(depth):
            cs = _const(s, at)
            _emit([MBarrierInitOp(full.result, cs, full_count), MBarrierInitOp(empty.result, cs, empty_count)], at)
        self.rings[c.ring] = _Ring(c, depth, bufs, full.result, empty.result, tma, release)

    def put(self, o: PutOp) -> None:
        ring = self.rings[o.ring]
        slot, par = _slot_parity(ring, o.position, o)
        ppar = arith.XOrIOp(par, _const(1, o))
        _emit([ppar, MBarrierTryWaitParityOp(ring.empty, slot, ppar.result)], o)
        generic = [(i, v) for i, v in enumerate(o.values) if not ring.tma[i]]
        for i, v in generic:
            _emit([SmemStoreOp(v, ring.bufs[i], slot)], o)
        if generic:
            _emit([FenceProxyAsyncOp(), MBarrierArriveOp(ring.full, slot, "per_thread")], o)
        loads = [(i, v.owner) for i, v in enumerate(o.values) if ring.tma[i]]
        if loads:
            nbytes = sum(tile_bytes(v.type) for i, v in enumerate(o.values) if ring.tma[i])
            _emit([MBarrierArriveExpectTxOp(ring.full, slot, nbytes)], o)
            for i, ld in loads:
                coords = [_as_i32(x, o) for x in ld.indices]
                _emit([TmaAsyncLoadOp(ld.desc, coords, ring.bufs[i], slot, ring.full, slot)], o)
        o.detach()
        o.erase()
        for _, ld in loads:
            ld.detach()
            ld.erase()

    def get(self, o: GetOp) -> None:
        ring = self.rings[o.ring]
        slot, par = _slot_parity(ring, o.position, o)
        _emit([MBarrierTryWaitParityOp(ring.full, slot, par)], o)
        views = [SmemViewOp(b, slot) for b in ring.bufs]
        _emit(views, o)
        for r, v in zip(o.results, views):
            v.result.name_hint = r.name_hint
            r.replace_all_uses_with(v.result)
        o.detach()
        o.erase()

    def consumed(self, o: ConsumedOp) -> None:
        ring = self.rings[o.ring]
        slot, _ = _slot_parity(ring, o.position, o)
        _emit([MBarrierArriveOp(ring.empty, slot, ring.release)], o)
        o.detach()
        o.erase()


@dataclass(frozen=True)
class LowerArefPass(ModulePass):
    """aref.create/put/get/consumed -> nvgpu mbarriers, smem slots and TMA copies."""

    name = "ws-lower-aref"

    def apply(self, ctx, op: ModuleOp) -> None:
        for f in list(op.walk()):
            if f.name == "func.func":
                LowerAref(f).run()
