"""`ws-cooperative{groups=G}`: cooperative consumer warp groups (Tawa §IV-A).

G consumer partitions read the same aref slots and each computes its share of
the consumer tile along M (128x256 -> 2 x 64x256); the producer is unchanged and
a ring's `consumers` count becomes the number of partitions that release it (G for a
ring only the split partition reads), so a slot is refilled only once all
groups released it. Which values are split along which axis is found by
propagating the M axis of every dot's A operand and accumulator through the
consumer (elementwise ops, expand_dims / broadcast / trans, reductions over
other axes, loop-carried values, pointer loads and stores); row index ranges
and splat constants are re-made at the group's size and offset, and a shared
tile (an aref slot) is narrowed with `warp_group.share`:

    warp_group.partition 1 consumer0 warps 4 ... {
      %a, %b = aref.get %r[%k] ...
      %a_g = warp_group.share %a, 0 of 2 along 0 : tensor<128x64xf16> -> tensor<64x64xf16>
      %d = mma.async_dot %a_g, %bt, %acc : ... -> tensor<64x256xf32>
      ...
      %rows = tile.make_range 0 to 64 : tensor<64xi32>          // group 1: 64 to 128

A TMA store of a split tile becomes `warp_group.gather` in every group (each
provides its rows, all meet) followed by the store in group 0 only. With
`stores=split` each group stores its own rows instead, with no meeting (what a
ping-pong team wants: its groups take turns and drift apart, and a gather makes the
first wait for the last at every store); the descriptor's box becomes a group's
slice, so it must be a kernel argument that only such stores use (else the store is
gathered, with a remark):

    tile.desc_store %d[%m, %n], %c : !tile.desc<tensor<64x256xf16>>      // group 0
    %m1 = arith.addi %m, %c64 : i32                                        // group 1
    tile.desc_store %d[%m1, %n], %c : !tile.desc<tensor<64x256xf16>>

A consumer
that cannot be split this way (a reduction along M, a non-splat constant) is
left as it is, with a remark; so is a partition that puts into a ring (after
`ws-schedule`, consumer partitions pass tiles to each other): a ring has one
producing partition, and the groups would put into the same slot.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.aref import ConsumedOp, CreateOp, GetOp, PutOp
from wsdialects.diagnostics import WsError
from wsdialects.mma import AsyncDotOp
from wsdialects.tile import (
    BroadcastOp,
    DescType,
    DescLoadOp,
    DotOp,
    ExpandDimsOp,
    MakeRangeOp,
    ReduceOp,
    SplatOp,
    TransOp,
)
from wsdialects.attributes import ctas_per_sm
from wsdialects.transforms.distribute import consumer_regs
from wsdialects.transforms.partition import PRODUCER, remark
from wsdialects.warp_group import GatherOp, PartitionOp, RegionOp, ShareOp


WGMMA_M = 64  # rows of one warp group's tensor-core MMA (wgmma m64nNk16)


class _CannotSplit(Exception):
    pass


def _tensor(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType)


@functools.lru_cache(maxsize=256)
def _is_splat(value: DenseIntOrFPElementsAttr) -> bool:
    """`value.is_splat()`, once per constant (attributes are immutable values; the check
    unpacks every element, and a 128x256 tile's constant is asked once per use)."""
    return value.is_splat()


def _splat_constant(op: Operation) -> bool:
    return isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr) and _is_splat(op.value)


class AxisMap:
    """The axis along which each tensor value is split (absent: not split)."""

    def __init__(self, part: PartitionOp):
        self.part = part
        self.axis: dict[SSAValue, int] = {}
        self.work: list[SSAValue] = []
        self.shared: set[SSAValue] = set()  # full tiles narrowed by warp_group.share
        self.gathered: set[Operation] = set()  # TMA stores of a tile the groups gather first

    def set(self, v: SSAValue, axis: int, why: Operation) -> None:
        if not _tensor(v):
            return
        old = self.axis.get(v)
        if old is None:
            if v.type.get_shape()[axis] == 1:
                return  # a size-1 dim is broadcast, not split
            self.axis[v] = axis
            self.work.append(v)
        elif old != axis:
            raise _CannotSplit(f"{why.name} needs {v.name_hint or 'a value'} split along {axis} and {old}")

    def solve(self) -> None:
        for op in self.part.body.walk():
            if isinstance(op, DotOp | AsyncDotOp):
                self.set(op.results[0], 0, op)
        while self.work:
            v = self.work.pop()
            owner = v.owner
            if isinstance(owner, Operation):
                self.visit(owner)
            else:
                self.visit_block_arg(v)
            for use in list(v.uses):
                self.visit(use.operation)

    def visit_block_arg(self, v: BlockArgument) -> None:
        loop = v.block.parent_op()
        if isinstance(loop, scf.ForOp) and v.index > 0:  # an iter_arg (the iv is a scalar)
            self.visit(loop)

    def visit(self, op: Operation) -> None:
        ax = self.axis.get
        if isinstance(op, DotOp | AsyncDotOp):
            for v in (op.results[0], op.acc, op.a):
                if ax(v) is not None:
                    for w in (op.results[0], op.acc, op.a):
                        self.set(w, ax(v), op)
            if ax(op.b) is not None:
                raise _CannotSplit("a dot's B operand would be split")
        elif isinstance(op, ExpandDimsOp):
            e = op.axis.value.data
            if ax(op.src) is not None:
                s = ax(op.src)
                self.set(op.result, s if s < e else s + 1, op)
            if ax(op.result) is not None:
                r = ax(op.result)
                if r == e:
                    raise _CannotSplit("expand_dims would split its new axis")
                self.set(op.src, r if r < e else r - 1, op)
        elif isinstance(op, BroadcastOp):
            for v, w in ((op.src, op.result), (op.result, op.src)):
                if ax(v) is not None:
                    self.set(w, ax(v), op)
        elif isinstance(op, TransOp):
            order = list(op.order.get_values())
            if ax(op.src) is not None:
                self.set(op.result, order.index(ax(op.src)), op)
            if ax(op.result) is not None:
                self.set(op.src, order[ax(op.result)], op)
        elif isinstance(op, ReduceOp):
            r = op.axis.value.data
            if ax(op.src) is not None:
                s = ax(op.src)
                if s == r:
                    raise _CannotSplit("a reduction runs along the split axis")
                self.set(op.result, s if s < r else s - 1, op)
            if ax(op.result) is not None:
                t = ax(op.result)
                self.set(op.src, t if t < r else t + 1, op)
        elif isinstance(op, scf.ForOp):
            body = op.body.block
            for j, init in enumerate(op.iter_args):
                group = (init, body.args[j + 1], body.last_op.operands[j], op.results[j])
                for v in group:
                    if ax(v) is not None:
                        for w in group:
                            self.set(w, ax(v), op)
        elif isinstance(op, scf.YieldOp):
            parent = op.parent_op()
            if isinstance(parent, scf.ForOp | scf.IfOp):
                self.visit(parent)
        elif isinstance(op, scf.IfOp):
            for j, res in enumerate(op.results):
                group = (res, *(r.block.last_op.operands[j] for r in op.regions if r.blocks))
                for v in group:
                    if ax(v) is not None:
                        for w in group:
                            self.set(w, ax(v), op)
        elif isinstance(op, GetOp | DescLoadOp):
            for r in op.results:
                if ax(r) is not None:
                    self.shared.add(r)  # the whole tile arrives; each group takes its share
        elif isinstance(op, SplatOp | MakeRangeOp):
            pass  # re-made at the group's size
        elif isinstance(op, arith.ConstantOp):
            if ax(op.result) is not None and not _splat_constant(op):
                raise _CannotSplit("a non-splat constant tile would be split")
        elif op.name in ("tile.desc_store",):
            if ax(op.operands[-1]) is not None:
                self.gathered.add(op)  # the groups gather the tile, the first one stores it
        elif op.name.startswith(("arith.", "math.")) or op.name in (
                "tile.addptr", "tile.load", "tile.store", "tile.atomic_add", "mma.wait"):
            if op.name == "mma.wait":
                pairs = list(zip(op.operands, op.results))
                for a, b in pairs:
                    for v, w in ((a, b), (b, a)):
                        if ax(v) is not None:
                            self.set(w, ax(v), op)
                return
            vals = [v for v in (*op.operands, *op.results) if _tensor(v)]
            known = [ax(v) for v in vals if ax(v) is not None]
            if known:
                for v in vals:
                    self.set(v, known[0], op)
        elif any(ax(v) is not None for v in (*op.operands, *op.results)):
            raise _CannotSplit(f"{op.name} cannot be split across consumer groups")


def _untie(part: PartitionOp) -> None:
    """Give each extra use of a make_range, splat or splat constant its own copy."""
    for op in list(part.body.walk()):
        remakeable = isinstance(op, MakeRangeOp | SplatOp) or _splat_constant(op)
        if not remakeable:
            continue
        for use in list(op.results[0].uses)[1:]:
            twin = op.clone()
            twin.results[0].name_hint = op.results[0].name_hint
            op.parent_block().insert_op_after(twin, op)
            use.operation.operands[use.index] = twin.results[0]


def _fit_register_file(region: RegionOp) -> None:
    """The consumer partitions' budgets after a split: every consumer group (split or left
    whole) gets at most what the register file holds for all of them next to the producer."""
    consumers = [p for p in region.partitions if p.pid != PRODUCER]
    regs = consumer_regs(sum(p.warps for p in consumers), ctas_per_sm(region))
    for p in consumers:
        if p.regs is None or p.regs.value.data > regs:
            p.regs = IntegerAttr(regs, 32)


def _retype_desc(d: BlockArgument, block: TensorType) -> None:
    """Kernel argument `d` becomes a descriptor of box `block` (the kernel's type follows): the
    runtime and the interpreter build a descriptor argument's box from its type."""
    d._type = DescType(block)  # noqa: SLF001 - retyping in place
    kernel = d.owner.parent_op()
    kernel.function_type = func.FunctionType.from_lists([a.type for a in d.owner.args], [])


@functools.lru_cache(maxsize=4096)  # types are values: the same one for the same inputs
def _sliced_type(t: TensorType, axis: int, groups: int) -> TensorType:
    shape = list(t.get_shape())
    shape[axis] //= groups
    return TensorType(t.element_type, shape)


@dataclass(frozen=True)
class CooperativePass(ModulePass):
    """Split each consumer partition into `groups` cooperative warp groups."""

    name = "ws-cooperative"
    groups: int = 2
    stores: str = "gather"  # a TMA store of the team's tile: gathered into group 0's, or one per group

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.groups < 1:
            raise WsError(f"ws-cooperative: groups must be >= 1, got {self.groups}", "ws-opt")
        if self.stores not in ("gather", "split"):
            raise WsError(f"ws-cooperative: stores must be gather or split, got '{self.stores}'", "ws-opt")
        if self.groups == 1:
            return
        for region in [o for o in op.walk() if isinstance(o, RegionOp)]:
            for part in region.partitions:
                if any(isinstance(o, GetOp) for o in part.body.walk()):
                    self.split(region, part)
            _fit_register_file(region)

    def split(self, region: RegionOp, part: PartitionOp) -> None:
        G = self.groups
        original = part
        try:
            puts = [o for o in part.body.walk() if isinstance(o, PutOp)]
            if puts:  # a ring has one producer: the groups would both put into the same slot (issue 12, S2)
                ring = puts[0].ring.name_hint
                raise _CannotSplit(f"it puts into ring {'%' + ring if ring else 'an aref ring'}, and a ring has one "
                                   "producing partition (the groups would put into the same slot)")
            per = part.warps // G  # each group takes max(4, per) warps: whole warp groups
            if per > 4 and (per % 4 or part.warps % G):
                raise _CannotSplit(f"its {part.warps} warps do not make {G} groups of whole warp groups (4 warps each)")
            # Work on a copy in which every index range / splat has one use, so a range
            # that serves as rows in one place and as columns in another splits freely.
            part = part.clone()
            _untie(part)
            amap = AxisMap(part)
            amap.solve()
            for v, a in amap.axis.items():
                if v.type.get_shape()[a] % G:
                    raise _CannotSplit(f"a tile of {v.type.get_shape()[a]} rows does not split into {G} groups")
            for d in part.body.walk():
                if d.name == "tile.atomic_add" and d.operands[1] not in amap.axis:
                    # each group would add the whole of it (a store may repeat itself, an add may not)
                    raise _CannotSplit("a tile.atomic_add of a value the groups do not split would add it once "
                                       "per group")
                if isinstance(d, DotOp | AsyncDotOp) and (d.results[0].type.get_shape()[0] // G) % WGMMA_M:
                    raise _CannotSplit(f"each group's share of a {d.results[0].type.get_shape()[0]}-row dot "
                                       f"would be smaller than a warp group's {WGMMA_M}-row MMA")
        except _CannotSplit as e:
            remark(original, f"ws-cooperative: consumer partition {original.pid} stays one group: {e}")
            if part is not original:
                part.erase()
            return
        region.body.block.insert_op_before(part, original)
        original.detach()
        original.erase()
        warps = max(4, part.warps // G)
        regs = consumer_regs(warps * G, ctas_per_sm(region))
        first_id = max(p.pid for p in region.partitions) + 1
        where = {i: amap.axis[o.operands[-1]] for i, o in enumerate(part.body.walk()) if o in amap.gathered}
        split = self._split_descs(part, amap) if self.stores == "split" else set()
        for g in range(G):
            mapping: dict[SSAValue, SSAValue] = {}
            last = g == G - 1  # the last group is `part` itself (the others are copies of it, placed before it)
            group = part if last else part.clone(value_mapper=mapping)
            stores = [(o, where[i]) for i, o in enumerate(group.body.walk()) if i in where]
            group.id = IntegerAttr(part.pid if g == 0 else first_id + g - 1, 32)
            group.num_warps = IntegerAttr(warps, 32)
            group.regs = IntegerAttr(regs, 32)
            group.role = StringAttr(f"{part.role_name}{g}")
            self.retype({mapping.get(v, v): a for v, a in amap.axis.items()},
                        {mapping.get(v, v) for v in amap.shared}, g)
            self.gather_stores([(st, a) for st, a in stores if st.operands[0] not in split], g)
            self.split_stores([(st, a) for st, a in stores if st.operands[0] in split], g)
            if not last:
                region.body.block.insert_op_before(group, part)
        # A slot is refilled once every partition that releases the ring has released it:
        # the groups of this partition, and any other partition that reads the same ring
        # (a partition left whole keeps releasing once; counting G for every ring left the
        # slots of an unsplit partition's rings never empty: a deadlock after D iterations).
        releasers: dict[SSAValue, set] = {}
        for p in region.partitions:
            for o in p.body.walk():
                if isinstance(o, ConsumedOp):
                    releasers.setdefault(o.ring, set()).add(p)
        for ring, parts in releasers.items():
            if isinstance(ring.owner, CreateOp):
                ring.owner.consumers = IntegerAttr(len(parts), 32) if len(parts) > 1 else None

    def _split_descs(self, part: PartitionOp, amap: AxisMap) -> set[SSAValue]:
        """The descriptors whose TMA stores each group may issue for its own rows: kernel
        arguments that only this partition's stores of split tiles use, all along one axis
        (their box becomes a group's slice: `_retype_desc`). The others are remarked."""
        axes: dict[SSAValue, set[int]] = {}
        for st in amap.gathered:
            axes.setdefault(st.operands[0], set()).add(amap.axis[st.operands[-1]])
        ok = set()
        for d, found in axes.items():
            if not (isinstance(d, BlockArgument) and isinstance(d.owner.parent_op(), func.FuncOp)):
                why = "its descriptor is not a kernel argument"
            elif any(u.operation not in amap.gathered for u in d.uses):
                why = f"descriptor %{d.name_hint or d.index} is used by other ops, and its box would become " \
                      "a group's rows"
            elif len(found) > 1:
                why = f"descriptor %{d.name_hint or d.index} stores tiles split along different axes"
            else:
                ok.add(d)
                continue
            remark(part, f"ws-cooperative: a TMA store stays gathered into group 0 (stores=split): {why}")
        for d in ok:
            axis = next(iter(axes[d]))
            _retype_desc(d, _sliced_type(d.type.block, axis, self.groups))
        return ok

    def split_stores(self, stores: list[tuple[Operation, int]], g: int) -> None:
        """Each group stores its own slice, at its rows: the coordinate of the box's `axis` (the
        last coordinates address the box; leading ones pick the slice of a higher-rank array)
        moves by g x the slice."""
        if g == 0:  # group 0's rows start where the tile does
            return
        for st, axis in stores:
            value = st.operands[-1]
            i = len(st.operands) - 1 - len(value.type.get_shape()) + axis  # operands: desc, coordinates..., value
            at = st.operands[i]
            step = arith.ConstantOp(IntegerAttr(g * value.type.get_shape()[axis], at.type))
            moved = arith.AddiOp(at, step.result)
            step.result.name_hint, moved.result.name_hint = "group_rows", (at.name_hint or "at") + f"_g{g}"
            st.parent_block().insert_ops_before([step, moved], st)
            st.operands = [*st.operands[:i], moved.result, *st.operands[i + 1:]]

    def gather_stores(self, stores: list[tuple[Operation, int]], g: int) -> None:
        """A TMA store of a split tile: every group gathers it, group 0 stores it."""
        for st, axis in stores:
            value = st.operands[-1]
            gather = GatherOp(value, g, self.groups, axis)
            gather.result.name_hint = (value.name_hint or "t") + "_all"
            st.parent_block().insert_op_before(gather, st)
            if g == 0:
                st.operands = [*st.operands[:-1], gather.result]
            else:
                st.detach()
                st.erase()

    def retype(self, axis: dict[SSAValue, int], shared: set[SSAValue], g: int) -> None:
        G = self.groups
        # Shared tiles: narrow them once, right where they arrive.
        for v in shared:
            a = axis[v]
            share = ShareOp(v, g, G, a)
            share.result.name_hint = (v.name_hint or "t") + f"_g{g}"
            v.replace_uses_with_if(share.result, lambda u, s=share: u.operation is not s)
            owner = v.owner
            if isinstance(owner, Operation):
                owner.parent_block().insert_op_after(share, owner)
            axis.pop(v)
        for v, a in axis.items():
            v._type = _sliced_type(v.type, a, G)  # noqa: SLF001 - retyping in place
            owner = v.owner
            if isinstance(owner, MakeRangeOp):
                n = v.type.get_shape()[0]
                start = owner.start.value.data + g * n
                owner.start, owner.end = IntegerAttr(start, 32), IntegerAttr(start + n, 32)
            elif isinstance(owner, arith.ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr):
                first = next(owner.value.iter_values())  # a splat (or its first element), re-made at the group's size
                owner.value = DenseIntOrFPElementsAttr.from_list(v.type, [first])
