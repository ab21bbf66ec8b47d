"""`ws-persistent{programs=N tile-group=T}`: persistent warp-specialized kernels (Tawa §IV-B).

N programs (`programs=N`; 0, the default, is one per CTA the SMs hold: 132, times the
kernel's `ws.ctas_per_sm`) loop over the output tiles of the user's grid: tile = pid + i *
programs. The tile order is the pass's decision (`tile-group=T`): with T = 0, x fastest in
serpentine order (every other row of tiles runs x backwards, so programs see all x alike:
balanced when work grows with x, as in causal attention); with T > 0, in bands of T x values
(x fastest within a band, then y: Triton's GROUP_M), so the tiles in flight share a few rows
of A and columns of B in L2; the default (T = -1) takes bands of 8 when some TMA load's box
depends on the tile's x alone and another's on its y alone (a GEMM on a 2-D or 3-D grid,
where L2 reuse pays at large K), else serpentine (attention: K and V depend on y alone), and
says so in a remark. A 1-D grid the kernel decodes itself
(`pid % W` and `pid / W` its only uses of the program id, as in Triton's tutorial matmul)
is a W-wide 2-D grid for this choice: its tiles are ordered in bands over (pid % W, pid / W)
and the virtual 1-D id handed to the user's decode (ids past the last full column of W keep
their place).
Every partition runs the same tile loop, so the producer runs ahead into the
next tile while the consumers finish an epilogue.
Ring positions continue across tiles (a running base is added to every position
inside the K loop; one-shot rings advance once per tile), and the consumers meet
at a `warp_group.barrier` before each epilogue.

The launch contract is recorded on the kernel: `ws.persistent = {programs = N}`
and three trailing i32 arguments carrying the user's grid. The interpreter (and
the GPU runtime) take the user's grid and arguments unchanged, launch
min(N, tiles) programs and pass the grid themselves.

    func.func @k(..., %ws_grid_x: i32, %ws_grid_y: i32, %ws_grid_z: i32)
        attributes {ws.persistent = {programs = 132 : i32}, ...} {
      warp_group.partition 1 consumer ... {
        scf.for %tile = %pid to %tiles step %programs iter_args(%base = %c0, %i = %c0) {
          %col = arith.remsi %tile, %ws_grid_x ...
          %pid_x = arith.select %odd, %back, %col : i32    // replaces tile.program_id 0
          ... aref.get %r[%k + %base] ...
          warp_group.barrier
          ... epilogue ...
        }
      }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, i32
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass

from wsdialects.aref import ConsumedOp, GetOp, PutOp
from wsdialects.attributes import ctas_per_sm
from wsdialects.diagnostics import WsError, error_at
from wsdialects.tile import DescLoadOp, NumProgramsOp, ProgramIdOp
from wsdialects.transforms.partition import kernels, remark
from wsdialects.transforms.pipeline_coarse import PEELED_ATTR
from wsdialects.transforms.trip_count import trip_count
from wsdialects.warp_group import BarrierOp, PartitionOp, RegionOp

PERSISTENT_ATTR = "ws.persistent"
GRID_ARGS = ("ws_grid_x", "ws_grid_y", "ws_grid_z")
AREF_OPS = (PutOp, GetOp, ConsumedOp)


SMS = 132  # SMs of the H100 SXM (and H200): one program per CTA they hold by default
AUTO_GROUP = 8  # Triton's usual GROUP_M


def _decoded_width(pid: ProgramIdOp) -> SSAValue | None:
    """W when every use of this axis-0 program id is `pid % W` or `pid / W` with one W: a 1-D
    grid the kernel decodes into (x, y) = (pid % W, pid / W) itself."""
    if pid.axis.value.data != 0 or not pid.result.uses:
        return None
    widths = set()
    for use in pid.result.uses:
        o = use.operation
        if not isinstance(o, arith.RemSIOp | arith.DivSIOp) or use.index != 0:
            return None
        widths.add(o.rhs)
    return widths.pop() if len(widths) == 1 else None


def _decoded_grid(kernel: func.FuncOp) -> bool:
    """The kernel reads its program id only as a decoded 1-D grid (`_decoded_width`)."""
    pids = [o for o in kernel.body.walk() if isinstance(o, ProgramIdOp)]
    return bool(pids) and all(_decoded_width(p) is not None for p in pids)


def _axes(v: SSAValue, seen: set, decoded: bool = False) -> set[int]:
    """The program-id axes a value is computed from; in a decoded 1-D grid `pid % W` is x
    (axis 0) and `pid / W` is y (axis 1)."""
    if not isinstance(v, OpResult) or v in seen:
        return set()
    seen.add(v)
    if decoded and isinstance(v.op, arith.RemSIOp | arith.DivSIOp) and isinstance(v.op.lhs, OpResult) \
            and isinstance(v.op.lhs.op, ProgramIdOp):
        return {0} if isinstance(v.op, arith.RemSIOp) else {1}
    if isinstance(v.op, ProgramIdOp):
        return {v.op.axis.value.data}
    out: set[int] = set()
    for o in v.op.operands:
        out |= _axes(o, seen, decoded)
    return out


def _shares_rows_and_columns(kernel: func.FuncOp) -> bool:
    """Some TMA load's box depends on the tile's x and not its y, another's on y and not x (a
    GEMM's A and B tiles): tiles that run together then reuse each other's loads in L2 when
    they are grouped. Attention's K and V depend on y alone and Q on both: no grouping. In a
    decoded 1-D grid, x is `pid % W` and y is `pid / W`."""
    decoded = _decoded_grid(kernel)
    kinds = set()
    for o in kernel.body.walk():
        if isinstance(o, DescLoadOp):
            axes: set[int] = set()
            for c in o.operands[1:]:  # the box coordinates
                axes |= _axes(c, set(), decoded)
            kinds.add(frozenset(axes & {0, 1}))
    return frozenset({0}) in kinds and frozenset({1}) in kinds


def _decode_site(old: Block) -> SSAValue | None:
    """W when this partition reads its program id only as `pid % W` / `pid / W` (one W) and W
    is an argument or defined at the partition's top level, where the virtual id can be
    computed before the decode; else None (the grid's own axes are ordered)."""
    pids = [o for o in old.walk() if isinstance(o, ProgramIdOp)]
    widths = {_decoded_width(p) for p in pids}
    if not pids or None in widths or len(widths) != 1:
        return None
    (w,) = widths
    if isinstance(w, OpResult) and w.op.parent_block() is not old:
        return None
    return w


def _c(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, 32))


def _main_loops(part: PartitionOp) -> list[scf.ForOp]:
    """The partition's K loops, in order: the loops whose bodies put or get (one may sit
    in the guard of a loop that ws-pipeline-coarse pipelined)."""
    return [op for op in part.body.walk()
            if isinstance(op, scf.ForOp) and any(isinstance(o, PutOp | GetOp) for o in op.body.block.ops)]


def _tile_loop_of_its_own(kernel: func.FuncOp) -> scf.ForOp | None:
    """A K loop nested in another loop of a partition (the kernel loops over its tiles itself)."""
    for part in kernel.body.walk():
        if isinstance(part, PartitionOp):
            for loop in _main_loops(part):
                if _in_loop(loop, part):
                    return loop
    return None


def _check_same_rings(loops: list[scf.ForOp]) -> None:
    """Every K loop of a tile moves the same rings, so that one running base serves them all."""
    def rings(lp):
        return {o.ring for o in lp.body.block.ops if isinstance(o, PutOp | GetOp)}
    for lp in loops[1:]:
        if rings(lp) != rings(loops[0]):
            raise error_at(lp, "ws-persistent: this loop moves other aref rings than the tile's first loop; a "
                               "persistent kernel's loops must all move the same rings (one running ring base)")


def _in_loop(op: Operation, part: PartitionOp) -> bool:
    """Is `op` nested in a loop of the partition (its K loop or a drain loop)?"""
    cur = op.parent_op()
    while cur is not None and cur is not part:
        if isinstance(cur, scf.ForOp):
            return True
        cur = cur.parent_op()
    return False


def _positions_per_tile(main: scf.ForOp) -> tuple[list[Operation], SSAValue]:
    """Ops computing how many ring positions one tile uses: the K loop's trip count,
    counting the iterations ws-pipeline-coarse peeled off in front of it."""
    peeled = main.attributes.get(PEELED_ATTR)
    if not isinstance(peeled, IntegerAttr):
        return trip_count(main)
    start = _c(peeled.value.data)
    back = arith.MuliOp(main.step, start.result)
    first = arith.SubiOp(main.lb, back.result)
    ops, trips = trip_count(main, lb=first.result)
    return [start, back, first, *ops], trips


@dataclass(frozen=True)
class PersistentPass(ModulePass):
    """Make warp-specialized kernels persistent: `programs` programs loop over the output tiles."""

    name = "ws-persistent"
    programs: int = 0  # 0: one per CTA the SMs hold (SMS x the kernel's ws.ctas_per_sm)
    tile_group: int = -1  # > 0: bands of this many x (L2-grouped); 0: x fastest, serpentine; -1: choose

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.programs < 0:
            raise WsError(f"ws-persistent: programs must be >= 1 (or 0: one per CTA the SMs hold), got "
                          f"{self.programs}", "ws-opt")
        if self.tile_group < -1:
            raise WsError(f"ws-persistent: tile-group must be >= 0 (or -1: chosen per kernel), got {self.tile_group}",
                          "ws-opt")
        for kernel in kernels(op):
            regions = [o for o in kernel.body.walk() if isinstance(o, RegionOp)]
            if not regions:
                continue  # not warp-specialized: nothing to make persistent
            if PERSISTENT_ATTR in kernel.attributes:
                raise error_at(kernel, "ws-persistent: kernel is already persistent")
            if (own := _tile_loop_of_its_own(kernel)) is not None:
                remark(own.parent_op(), "ws-persistent: the kernel loops over its tiles itself (this loop holds "
                                        "its K loop); it is left as it is, not made persistent again")
                continue
            group = self.tile_group
            if group < 0:
                group = AUTO_GROUP if _shares_rows_and_columns(kernel) else 0
                if group:
                    decoded = (", x = pid % W and y = pid / W of the 1-D grid the kernel decodes"
                               if _decoded_grid(kernel) else "")
                    remark(kernel, f"ws-persistent: tiles in bands of {group} x values (some loads depend on "
                                   f"the tile's x alone, others on its y alone{decoded}: an L2-grouped order)")
            programs = self.programs or SMS * ctas_per_sm(kernel)
            replace(self, tile_group=group, programs=programs).make_persistent(kernel, regions[0])

    def make_persistent(self, kernel: func.FuncOp, region: RegionOp) -> None:
        from wsdialects.transforms.tma_common import add_kernel_arg

        grid = [add_kernel_arg(kernel, i32, name) for name in GRID_ARGS]  # (an imported kernel's arg_attrs too)
        kernel.attributes[PERSISTENT_ATTR] = DictionaryAttr({"programs": IntegerAttr(self.programs, 32)})
        for part in region.partitions:
            self.wrap(part, grid, is_consumer=any(isinstance(o, GetOp) for o in part.body.walk()))

    @staticmethod
    def _serpentine(tile: SSAValue, grid: list[SSAValue], gxy: arith.MuliOp) -> list[Operation]:
        """Virtual program ids of this tile: x fastest, in serpentine order (x runs backwards in
        every other row), so a program that takes every `programs`-th tile sees all x alike
        even when `programs` shares a factor with the grid's x (work that grows with x, as in
        causal attention, is then spread evenly); neighbouring tiles stay neighbours."""
        col = arith.RemSIOp(tile, grid[0])
        yz = arith.DivSIOp(tile, grid[0])
        one = _c(1)
        odd = arith.AndIOp(yz.result, one.result)
        last = arith.SubiOp(grid[0], one.result)
        back = arith.SubiOp(last.result, col.result)
        is_odd = arith.CmpiOp(odd.result, one.result, "eq")
        x = arith.SelectOp(is_odd.result, back.result, col.result)
        y = arith.RemSIOp(yz.result, grid[1])
        z = arith.DivSIOp(tile, gxy.result)
        ops = [col, yz, one, odd, last, back, is_odd, x, y, z]
        for o, n in zip(ops, ("col", "row", None, "row_parity", None, "col_back", "backwards", "pid_x", "pid_y",
                              "pid_z")):
            o.result.name_hint = n
        return ops

    @staticmethod
    def _bands(g: SSAValue, t: SSAValue, gx: SSAValue, gy: SSAValue, clamp: bool) -> tuple[list[Operation], dict]:
        """(x, y) of tile index t in bands of g x values over a gx x gy grid (x fastest within a
        band, then y); `clamp`: a band size below 1 (t past the grid) becomes 1, no division by 0.

            band = t / (g * gy)   first = band * g   size = min(gx - first, g)
            x = first + (t mod (g * gy)) mod size   y = (t mod (g * gy)) / size
        """
        width = arith.MuliOp(g, gy)
        band = arith.DivSIOp(t, width.result)
        first = arith.MuliOp(band.result, g)
        left = arith.SubiOp(gx, first.result)
        size = arith.MinSIOp(left.result, g)
        ops: list[Operation] = [width, band, first, left, size]
        if clamp:
            one = _c(1)
            size = arith.MaxSIOp(size.result, one.result)
            ops += [one, size]
        inband = arith.RemSIOp(t, width.result)
        dx = arith.RemSIOp(inband.result, size.result)
        x = arith.AddiOp(first.result, dx.result)
        y = arith.DivSIOp(inband.result, size.result)
        ops += [inband, dx, x, y]
        names = {width: "band_tiles", band: "band", first: "band_x", left: "x_left", size: "band_size",
                 inband: "in_band", dx: "band_dx", x: "pid_x", y: "pid_y"}
        for o, n in names.items():
            o.result.name_hint = n
        return ops, {"x": x.result, "y": y.result}

    def _grouped(self, tile: SSAValue, grid: list[SSAValue], gxy: arith.MuliOp) -> list[Operation]:
        """Virtual program ids of this tile in bands of `tile_group` x values (Triton's GROUP_M):
        within a band x runs fastest, then y, so the tiles running at the same time share a few
        x (rows of A in a GEMM) and a few y (columns of B) and their loads hit in L2
        (`_bands` on t = tile mod (gx * gy); z = tile / (gx * gy))."""
        g = _c(self.tile_group)
        t = arith.RemSIOp(tile, gxy.result)
        bands, _ = self._bands(g.result, t.result, grid[0], grid[1], clamp=False)
        z = arith.DivSIOp(tile, gxy.result)
        g.result.name_hint, t.result.name_hint, z.result.name_hint = "tile_group", "slice_tile", "pid_z"
        return [g, t, *bands, z]

    def _decoded(self, tile: SSAValue, grid: list[SSAValue], width: SSAValue) -> list[Operation]:
        """The virtual 1-D program id of this tile when the kernel decodes its 1-D grid itself as
        (x, y) = (pid % W, pid / W): the bands of `_bands` over the grid's full columns of W
        ids (W as the x extent, gx / W as y's), then pid = x + y * W; ids past the last full
        column keep their place (and W < 1 leaves every id in place):

            s = tile mod gx   h = gx / W   (s < h * W ? bands over (W, h) : s)
        """
        g, one = _c(self.tile_group), _c(1)
        s = arith.RemSIOp(tile, grid[0])
        w = arith.MaxSIOp(width, one.result)
        h = arith.DivSIOp(grid[0], w.result)
        full = arith.MuliOp(h.result, w.result)
        h1 = arith.MaxSIOp(h.result, one.result)
        bands, xy = self._bands(g.result, s.result, w.result, h1.result, clamp=True)
        yw = arith.MuliOp(xy["y"], w.result)
        grouped = arith.AddiOp(xy["x"], yw.result)
        inside = arith.CmpiOp(s.result, full.result, "slt")
        pid = arith.SelectOp(inside.result, grouped.result, s.result)
        for o, n in ((g, "tile_group"), (s, "slice_tile"), (w, "decode_width"), (h, "full_columns"),
                     (full, "full_tiles"), (grouped, "grouped_pid"), (inside, "in_full_columns"), (pid, "pid")):
            o.result.name_hint = n
        return [g, one, s, w, h, full, h1, *bands, yw, grouped, inside, pid]

    def wrap(self, part: PartitionOp, grid: list[SSAValue], is_consumer: bool) -> None:
        old = part.body.block
        mains = _main_loops(part)
        _check_same_rings(mains)
        head = Block()
        pid, nprog = ProgramIdOp(0), NumProgramsOp(0)
        gxy = arith.MuliOp(grid[0], grid[1])
        tiles = arith.MuliOp(gxy.result, grid[2])
        zero = _c(0)
        head.add_ops([pid, nprog, gxy, tiles, zero])
        pid.result.name_hint, nprog.result.name_hint, tiles.result.name_hint = "program", "programs", "tiles"

        body = Block(arg_types=[i32, i32, i32])
        tile, base, count = body.args
        tile.name_hint, base.name_hint, count.name_hint = "tile", "ring_base", "tile_count"
        width = _decode_site(old) if self.tile_group > 0 else None
        if width is None:
            order = self._grouped(tile, grid, gxy) if self.tile_group > 0 else self._serpentine(tile, grid, gxy)
            body.add_ops(order)
            names = ("pid_x", "pid_y", "pid_z")
        else:
            order = self._decoded(tile, grid, width)
            names = ("pid", "pid", "pid")
        virtual = [next(o.result for o in order if o.result.name_hint == n) for n in names]

        for o in list(old.ops):
            o.detach()
            body.add_op(o)
        if width is not None:  # after the op defining W (or first, when W is an argument)
            w_op = width.op if isinstance(width, OpResult) else None
            if w_op is None:
                body.insert_ops_before(order, body.first_op)
            else:
                body.insert_ops_after(order, w_op)
        for o in list(body.walk()):
            if isinstance(o, ProgramIdOp) and o not in (pid,):
                o.result.replace_all_uses_with(virtual[o.axis.value.data])
                o.detach()
                o.erase()
            elif isinstance(o, NumProgramsOp):
                o.result.replace_all_uses_with(grid[o.axis.value.data])
                o.detach()
                o.erase()
        for v in reversed(order):  # keep only the virtual ids the tile uses
            if not v.result.uses:
                v.detach()
                v.erase()
        # Ring positions continue across tiles.
        looped = {o.ring for o in body.walk() if isinstance(o, AREF_OPS) and _in_loop(o, part)}
        for o in list(body.walk()):
            if isinstance(o, AREF_OPS):
                if o.ring in looped:
                    shifted = arith.AddiOp(o.position, base)
                    o.parent_block().insert_op_before(shifted, o)
                    o.operands = [o.ring, shifted.result, *o.operands[2:]]
                else:
                    o.operands = [o.ring, count, *o.operands[2:]]
        # Advance the counters.
        one = _c(1)
        tail: list[Operation] = [one]
        next_base: SSAValue = base
        for main in mains:  # each K loop of the tile: its positions follow the previous loop's
            count_ops, trips = _positions_per_tile(main)
            add = arith.AddiOp(next_base, trips)
            tail += [*count_ops, add]
            next_base = add.result
        nxt = arith.AddiOp(count, one.result)
        tail += [nxt, scf.YieldOp(next_base, nxt.result)]
        body.add_ops(tail)
        if is_consumer and mains:
            # The epilogue starts after the K loop and whatever releases its slots.
            last = [o for o in body.ops if any(isinstance(i, AREF_OPS) for i in o.walk())][-1]
            body.insert_op_after(BarrierOp(), last)
        loop = scf.ForOp(pid.result, tiles.result, nprog.result, [zero.result, zero.result], Region(body))
        head.add_op(loop)
        part.body.detach_block(old)
        old.erase()
        part.body.add_block(head)
