"""`ws-persistent{programs=N tile-group=T}`: persistent warp-specialized kernels (Tawa §IV-B).

One program per SM (N, default 132) loops over the output tiles of the user's
grid: tile = pid + i * programs. The tile order is the pass's decision: with T = 0, x
fastest in serpentine order (every other row of tiles runs x backwards, so programs see
all x alike: balanced when work grows with x, as in causal attention); with T > 0, in
bands of T x values (x fastest within a band, then y: Triton's GROUP_M), so the tiles in
flight share a few rows of A and columns of B in L2; the default (T = -1) takes bands of 8
when some TMA load's box depends on the tile's x alone and another's on its y alone (a
GEMM on a 2-D or 3-D grid; H100: +18 % / +30 % at K 4k / 16k on a 128x128 GEMM, -5 % at
1k, bench/results/2026-11-26-gemm-tile-order-h100-run48.md), else serpentine (attention: K
and V depend on y alone), and says so in a remark.
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
from wsdialects.diagnostics import WsError, error_at
from wsdialects.tile import DescLoadOp, NumProgramsOp, ProgramIdOp
from wsdialects.transforms.partition import kernels, remark
from wsdialects.transforms.pipeline_coarse import PEELED_ATTR
from wsdialects.transforms.pipeline_mma import trip_count
from wsdialects.warp_group import BarrierOp, PartitionOp, RegionOp

PERSISTENT_ATTR = "ws.persistent"
GRID_ARGS = ("ws_grid_x", "ws_grid_y", "ws_grid_z")
AREF_OPS = (PutOp, GetOp, ConsumedOp)


AUTO_GROUP = 8  # Triton's usual GROUP_M; measured: bench/results/2026-11-26-gemm-tile-order-h100-run48.md


def _axes(v: SSAValue, seen: set) -> set[int]:
    """The program-id axes a value is computed from."""
    if not isinstance(v, OpResult) or v in seen:
        return set()
    seen.add(v)
    if isinstance(v.op, ProgramIdOp):
        return {v.op.axis.value.data}
    out: set[int] = set()
    for o in v.op.operands:
        out |= _axes(o, seen)
    return out


def _shares_rows_and_columns(kernel: func.FuncOp) -> bool:
    """Some TMA load's box depends on the tile's x and not its y, another's on y and not x (a
    GEMM's A and B tiles): tiles that run together then reuse each other's loads in L2 when
    they are grouped. Attention's K and V depend on y alone and Q on both: no grouping."""
    kinds = set()
    for o in kernel.body.walk():
        if isinstance(o, DescLoadOp):
            axes: set[int] = set()
            for c in o.operands[1:]:  # the box coordinates
                axes |= _axes(c, set())
            kinds.add(frozenset(axes & {0, 1}))
    return frozenset({0}) in kinds and frozenset({1}) in kinds


def _c(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, 32))


def _main_loop(part: PartitionOp) -> scf.ForOp | None:
    """The partition's K loop: the first loop whose body puts or gets (it may sit in
    the guard of a loop that ws-pipeline-coarse pipelined)."""
    for op in part.body.walk():
        if isinstance(op, scf.ForOp) and any(isinstance(o, PutOp | GetOp) for o in op.body.block.ops):
            return op
    return None


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
    span = arith.SubiOp(main.ub, first.result)
    n = arith.CeilDivSIOp(span.result, main.step)
    zero = _c(0)
    n0 = arith.MaxSIOp(n.result, zero.result)
    n0.result.name_hint = "trips"
    return [start, back, first, span, n, zero, n0], n0.result


@dataclass(frozen=True)
class PersistentPass(ModulePass):
    """Make warp-specialized kernels persistent: `programs` programs loop over the output tiles."""

    name = "ws-persistent"
    programs: int = 132
    tile_group: int = -1  # > 0: bands of this many x (L2-grouped); 0: x fastest, serpentine; -1: choose

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.programs < 1:
            raise WsError(f"ws-persistent: programs must be >= 1, got {self.programs}", "ws-opt")
        if self.tile_group < -1:
            raise WsError(f"ws-persistent: tile-group must be >= 0 (or -1: chosen per kernel), got {self.tile_group}",
                          "ws-opt")
        for kernel in kernels(op):
            regions = [o for o in kernel.body.walk() if isinstance(o, RegionOp)]
            if not regions:
                continue  # not warp-specialized: nothing to make persistent
            if PERSISTENT_ATTR in kernel.attributes:
                raise error_at(kernel, "ws-persistent: kernel is already persistent")
            group = self.tile_group
            if group < 0:
                group = AUTO_GROUP if _shares_rows_and_columns(kernel) else 0
                if group:
                    remark(kernel, f"ws-persistent: tiles in bands of {group} x values (some loads depend on "
                                   "the tile's x alone, others on its y alone: an L2-grouped order)")
            replace(self, tile_group=group).make_persistent(kernel, regions[0])

    def make_persistent(self, kernel: func.FuncOp, region: RegionOp) -> None:
        entry = kernel.body.block
        grid = []
        for name in GRID_ARGS:
            a = entry.insert_arg(i32, len(entry.args))
            a.name_hint = name
            grid.append(a)
        kernel.function_type = func.FunctionType.from_lists([a.type for a in entry.args], [])
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

    def _grouped(self, tile: SSAValue, grid: list[SSAValue], gxy: arith.MuliOp) -> list[Operation]:
        """Virtual program ids of this tile in bands of `tile_group` x values (Triton's GROUP_M):
        within a band x runs fastest, then y, so the tiles running at the same time share a few
        x (rows of A in a GEMM) and a few y (columns of B) and their loads hit in L2:

            t = tile mod (gx * gy)   band = t / (G * gy)   first = band * G
            size = min(gx - first, G)   x = first + (t mod (G * gy)) mod size   y = (t mod (G * gy)) / size
        """
        g = _c(self.tile_group)
        t = arith.RemSIOp(tile, gxy.result)
        width = arith.MuliOp(g.result, grid[1])
        band = arith.DivSIOp(t.result, width.result)
        first = arith.MuliOp(band.result, g.result)
        left = arith.SubiOp(grid[0], first.result)
        size = arith.MinSIOp(left.result, g.result)
        inband = arith.RemSIOp(t.result, width.result)
        dx = arith.RemSIOp(inband.result, size.result)
        x = arith.AddiOp(first.result, dx.result)
        y = arith.DivSIOp(inband.result, size.result)
        z = arith.DivSIOp(tile, gxy.result)
        ops = [g, t, width, band, first, left, size, inband, dx, x, y, z]
        for o, n in zip(ops, ("tile_group", "slice_tile", "band_tiles", "band", "band_x", "x_left", "band_size",
                              "in_band", "band_dx", "pid_x", "pid_y", "pid_z")):
            o.result.name_hint = n
        return ops

    def wrap(self, part: PartitionOp, grid: list[SSAValue], is_consumer: bool) -> None:
        old = part.body.block
        main = _main_loop(part)
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
        order = self._grouped(tile, grid, gxy) if self.tile_group > 0 else self._serpentine(tile, grid, gxy)
        body.add_ops(order)
        virtual = [next(o.result for o in order if o.result.name_hint == n) for n in ("pid_x", "pid_y", "pid_z")]

        for o in list(old.ops):
            o.detach()
            body.add_op(o)
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
        if main is not None:
            count_ops, trips = _positions_per_tile(main)
            add = arith.AddiOp(base, trips)
            tail += [*count_ops, add]
            next_base = add.result
        nxt = arith.AddiOp(count, one.result)
        tail += [nxt, scf.YieldOp(next_base, nxt.result)]
        body.add_ops(tail)
        if is_consumer and main is not None:
            # The epilogue starts after the K loop and whatever releases its slots.
            last = [o for o in body.ops if any(isinstance(i, AREF_OPS) for i in o.walk())][-1]
            body.insert_op_after(BarrierOp(), last)
        loop = scf.ForOp(pid.result, tiles.result, nprog.result, [zero.result, zero.result], Region(body))
        head.add_op(loop)
        part.body.detach_block(old)
        old.erase()
        part.body.add_block(head)
