"""`ws-stage-in-slot`: a TMA store stages its tile in the slot of a ring its partitions have
released (FlashAttention-3 reuses shared memory the same way).

`tile.desc_store` needs its tile in shared memory (a staging buffer the size of the tile)
before TMA can store it. Attention's O is stored after the key loop, when the slot of the
depth-1 ring that brought Q is no longer read: staging O there frees 32 KB, which is what
lets 176-key tiles keep two slots of K and V. The pass pairs a store (or a cooperative
team's `warp_group.gather` + group 0's store) with a ring when

* the ring has one slot (depth 1) of the stored tile's type,
* every partition of the team gets and releases that slot once, in the block of its
  gather / store, before it, and reads the slot only as the A operand of its dots, in the
  rows it gathers (directly, or through `warp_group.share g of G along 0`), so a group
  writes only rows its own (retired) MMAs read;

and then marks both with `ws.store_staging = N` (ws-lower-aref carries the mark to the
ring's `nvgpu.smem.alloc`; the emitter stages the store in that slot), and moves each
partition's `aref.consumed` of the ring after its gather / store, the storing partition's
after an `nvgpu.tma.store_wait` (the slot is refilled only once TMA has read it):

    %q = aref.get %aref_q[%i] ...                    aref.create ... {ws.store_staging = 0 : i32}
    ... mma.async_dot %q, ... (key loop)   ==>       ... mma.async_dot %q, ... (key loop)
    aref.consumed %aref_q[%i] ...                    tile.desc_store %o_desc[...], %o {ws.store_staging = 0 : i32}
    tile.desc_store %o_desc[...], %o                 nvgpu.tma.store_wait
                                                     aref.consumed %aref_q[%i] ...

ws-hopper runs it only when the rings of the depth it wants do not fit with separate staging
buffers (remark); run alone, it stages every store it can and remarks on each.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.aref import ConsumedOp, CreateOp, GetOp
from wsdialects.diagnostics import remark
from wsdialects.layout import plain
from wsdialects.mma import AsyncDotOp
from wsdialects.nvgpu import STAGING_ATTR, TmaStoreWaitOp
from wsdialects.tile import DotOp
from wsdialects.warp_group import GatherOp, PartitionOp, RegionOp, ShareOp, enclosing_partition


def _reads_own_rows_as_a(view: SSAValue, group: int, groups: int) -> bool:
    """Every use of the slot `view` is the A operand of a dot, directly (one group) or
    through `warp_group.share group of groups along 0`: the group reads only its rows."""
    for use in view.uses:
        op = use.operation
        if isinstance(op, (AsyncDotOp, DotOp)) and use.index == 0 and groups == 1:
            continue
        if (isinstance(op, ShareOp) and op.axis.value.data == 0 and op.group.value.data == group
                and op.groups.value.data == groups and _reads_own_rows_as_a(op.result, 0, 1)):
            continue
        return False
    return True


@dataclass
class _Member:
    """One partition of a store's team: its gather (or the store) and the ring ops."""
    part: PartitionOp
    group: int
    anchor: Operation  # the gather or the store: the slot is written here
    store: Operation | None  # the tile.desc_store, in the storing partition


def _team(store: Operation, region: RegionOp) -> list[_Member] | None:
    """The partitions that write the staged tile: the store's own, or every member of
    the gather feeding it. None: a shape the pass does not handle."""
    v = store.operands[-1]
    part = enclosing_partition(store)
    if part is None:
        return None
    if not isinstance(v.owner, GatherOp):
        return [_Member(part, 0, store, store)]
    g0 = v.owner
    if g0.axis.value.data != 0 or g0.group.value.data != 0 or g0.parent_block() is not store.parent_block():
        return None
    n = g0.groups.value.data
    members = {0: _Member(part, 0, g0, store)}
    for p in region.partitions:
        for o in p.body.walk():
            if (isinstance(o, GatherOp) and o is not g0 and o.groups.value.data == n and o.axis.value.data == 0
                    and plain(o.result.type) == plain(g0.result.type)):
                if o.group.value.data in members:
                    return None  # two teams storing one type: not ours to pair
                members[o.group.value.data] = _Member(p, o.group.value.data, o, None)
    return [members[g] for g in range(n)] if sorted(members) == list(range(n)) else None


def _ring_ops(member: _Member, ring: SSAValue) -> tuple[GetOp, ConsumedOp] | None:
    """The member's get and release of `ring`: once each, before its anchor, in its block."""
    ops = [o for o in member.part.body.walk() if isinstance(o, (GetOp, ConsumedOp)) and o.ring is ring]
    gets = [o for o in ops if isinstance(o, GetOp)]
    rels = [o for o in ops if isinstance(o, ConsumedOp)]
    if len(gets) != 1 or len(rels) != 1:
        return None
    get, rel = gets[0], rels[0]
    block = member.anchor.parent_block()
    if get.parent_block() is not block or rel.parent_block() is not block:
        return None
    order = {id(o): i for i, o in enumerate(block.ops)}
    if not order[id(get)] < order[id(rel)] < order[id(member.anchor)]:
        return None
    return get, rel


def _holders(ring: SSAValue, region: RegionOp) -> set[PartitionOp]:
    """The partitions that get a slot of `ring`."""
    return {p for p in region.partitions for o in p.body.walk() if isinstance(o, GetOp) and o.ring is ring}


def _fits(member: _Member, ring: SSAValue, groups: int) -> tuple[GetOp, ConsumedOp] | None:
    found = _ring_ops(member, ring)
    if found is None or len(found[0].results) != 1:
        return None
    if not _reads_own_rows_as_a(found[0].results[0], member.group, groups):
        return None
    return found


def stage(store: Operation, region: RegionOp, rings: list[CreateOp], index: int) -> CreateOp | None:
    """Pair `store` with a released ring slot and rewrite (see the module doc); the ring, or None."""
    team = _team(store, region)
    if team is None:
        return None
    want = plain(store.operands[-1].type)
    for create in rings:
        rt = create.results[0].type
        types = list(rt.types)
        if rt.depth.data != 1 or len(types) != 1 or plain(types[0]) != want:
            continue
        found = [_fits(m, create.results[0], len(team)) for m in team]
        if any(f is None for f in found) or _holders(create.results[0], region) != {m.part for m in team}:
            continue  # (a partition outside the team that reads the slot would race with the staging)
        create.attributes[STAGING_ATTR] = store.attributes[STAGING_ATTR] = IntegerAttr(index, 32)
        for m, (_, rel) in zip(team, found):
            rel.detach()
            at = m.store if m.store is not None else m.anchor
            block = at.parent_block()
            block.insert_op_after(rel, at)
            if m.store is not None:
                block.insert_op_after(TmaStoreWaitOp(), at)
        return create
    return None


@dataclass(frozen=True)
class StageInSlotPass(ModulePass):
    """Stage a TMA store's tile in the slot of a ring its partitions have released (attention: O in Q's slot)."""

    name = "ws-stage-in-slot"

    def apply(self, ctx, op: ModuleOp) -> None:
        if not stage_stores(op):
            from wsdialects.transforms.partition import kernels

            for k in kernels(op)[:1]:
                remark(k, "ws-stage-in-slot: no tile.desc_store has a released ring slot of its tile's type to stage in")


def stage_stores(op: ModuleOp) -> int:
    """Stage every store that can be; how many were. Each gets a remark at the store."""
    n = sum(1 for o in op.walk() if isinstance(o, CreateOp) and STAGING_ATTR in o.attributes)
    done = 0
    for region in [r for r in op.walk() if isinstance(r, RegionOp)]:
        rings = [o for o in region.parent_block().ops if isinstance(o, CreateOp) and STAGING_ATTR not in o.attributes]
        stores = [o for part in region.partitions for o in part.body.walk()
                  if o.name == "tile.desc_store" and STAGING_ATTR not in o.attributes]
        for store in stores:
            ring = stage(store, region, rings, n)
            if ring is None:
                continue
            rings.remove(ring)
            t = list(ring.results[0].type.types)[0]
            remark(store, f"ws-stage-in-slot: the TMA store stages its {t} in the slot of ring "
                          f"%{ring.results[0].name_hint or 'ring'}, released after the store has read it")
            n += 1
            done += 1
    return done
