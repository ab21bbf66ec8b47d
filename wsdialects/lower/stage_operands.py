"""`ws-stage-operands`: a register tile that wgmma cannot read from registers is staged
through shared memory inside its warp-group branch (FlashAttention-3's dS in dQ += dS·K).

wgmma reads A from registers only in the accumulator fragment, and B never. A tile computed
in registers and used transposed as A (attention backward's dS = trans(dSᵀ), dSᵀ computed in
the accumulator layout), or used as B, is written by the branch's threads into a buffer of
its own and read by the wgmma from there; this pass decides it, in the IR, before
`ws-lower-mma` checks the operands:

    %st = tile.trans %s16 [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
    %d = mma.async_dot %st, %v, %acc : ...
  ==>
    %s16_stage = nvgpu.smem.alloc : memref<1x128x128xf16, 3 : i64>     (before the dispatch)
    ...
    mma.wait {pending = 1}                    (in a loop: the previous readers have retired,
    nvvm.barrier 2 threads 256                 in every warp group of the branch)
    nvgpu.smem.store %s16, %s16_stage[%c0] : memref<1x128x128xf16, 3 : i64>
    nvgpu.fence.proxy_async                   (generic-proxy writes before wgmma's reads)
    nvvm.barrier 2 threads 256                (every thread's part is written)
    %st_s = nvgpu.smem.view %s16_stage[%c0] : memref<1x128x128xf16, 3 : i64>
    %st_a = tile.trans %st_s [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
    %d = mma.async_dot %st_a, %v, %acc : ...

An 8-bit B in shared memory as loaded, KxN with N contiguous (an fp8 V in P·V: fp8 wgmma
reads both operands K-major only; ws-producer-transpose has the producer transpose it
instead, unless `v-transpose=consumer` or the producer lacks the registers), is transposed
into the buffer the same way: the threads
read it from its slot in the accumulator layout of the NxK tile (`nvgpu.smem.load`, which
ws-lower-layouts inserts) and store it K-contiguous, and the dot reads `tile.trans` of the
buffer's view, a K-major B:

    %acc2 = mma.async_dot %p8, %v, %acc : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> ...
  ==>
    %v_t = tile.trans %v [1, 0] : ...;  nvgpu.smem.store %v_t, %v_stage[%c0];  fence;  barrier
    %v_s = nvgpu.smem.view %v_stage[%c0];  %v_a = tile.trans %v_s [1, 0];  mma.async_dot %p8, %v_a, %acc

The tile is stored as it was computed (the accumulator layout, rows of the stored tile in
its rows, two adjacent columns per store), so a transposed A is read M-contiguous (wgmma's
transpose-A bit, f16 / bf16), a B that is `tile.trans` of a computed NxK tile K-major, and
any other register B N-contiguous (f16 / bf16). Which operand is "used transposed" is read
from where it comes from: `tile.trans` of a register tile (through elementwise ops and
loop-carried values, as ws-pipeline-mma leaves them); a register A in the accumulator
layout stays wgmma's register A.

One buffer of one slot serves every staged operand of one tile type in a branch (the
emitter places it with the other `nvgpu.smem.alloc`s; `ws-hopper` counts it in the shared
memory its rings may take). Before a store that may follow an earlier read of the buffer
(in a loop, or after another staged dot), the wgmma groups that read it must have retired:
a zero-operand `mma.wait` leaves in flight only the async dots issued since the last
possible reader (none inserted where a wait or a synchronous dot after that reader already
retires it), and the branch's named barrier (id 1 + its place in the dispatch, all its
threads: the producer branch is not involved) makes that true for every warp group of the
branch, whose wgmmas read rows the others wrote. Runs in `ws-hopper` between
`ws-lead-warp` and `ws-lower-mma`; without branches it changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, TensorType, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.diagnostics import error_at
from wsdialects.layout import slot_swizzle
from wsdialects.lower.llvm.types import nbytes, prod, round_up
from wsdialects.mma import AsyncDotOp, WaitOp
from wsdialects.nvgpu import BranchOp, DispatchOp, FenceProxyAsyncOp, SmemAllocOp, SmemStoreOp, SmemViewOp
from wsdialects.nvgpu.types import SMEM_SPACE
from wsdialects.nvvm import BarrierOp
from wsdialects.tile import DotOp, TransOp

DOTS = (DotOp, AsyncDotOp)
# Where a tile in shared memory comes from (never staged: wgmma reads it where it is).
SHARED_SOURCES = ("nvgpu.smem.view", "aref.get", "tile.desc_load")


def is_shared(v: SSAValue) -> bool:
    """`v` is a tile in shared memory: a slot (or a TMA load the emitter stages), seen
    through `tile.trans` and `warp_group.share`."""
    o = v.owner
    while isinstance(o, Operation) and o.name in ("tile.trans", "warp_group.share"):
        o = o.operands[0].owner
    return isinstance(o, Operation) and o.name in SHARED_SOURCES


def n_major_8bit(b: SSAValue) -> bool:
    """`b` is an 8-bit KxN tile in shared memory as loaded (N-contiguous: an fp8 V in P·V),
    which wgmma reads K-major only."""
    if not isinstance(b.type, TensorType) or nbytes(b.type.element_type) != 1 or not is_shared(b):
        return False
    o = b.owner
    transposed = False
    while isinstance(o, Operation) and o.name in ("tile.trans", "warp_group.share"):
        if o.name == "tile.trans" and list(o.order.get_values()) == [1, 0]:
            transposed = not transposed
        o = o.operands[0].owner
    return not transposed


def orientation(v: SSAValue, seen: frozenset = frozenset()) -> str | None:
    """How the register tile `v` stands to the accumulator layout its values are computed
    in: "acc" (a dot's result, or computed elementwise from one), "trans" (`tile.trans` of
    such a tile), None where nothing says (constants, splats, loads from pointers)."""
    if v in seen or not isinstance(v.type, TensorType) or len(v.type.get_shape()) != 2:
        return None
    seen = seen | {v}
    o = v.owner
    if isinstance(v, BlockArgument):
        loop = o.parent_op() if isinstance(o, Block) else None
        if loop is None or loop.name != "scf.for" or v.index == 0:
            return None
        i = v.index - 1
        return _agree([orientation(loop.operands[3 + i], seen), orientation(o.last_op.operands[i], seen)])
    if isinstance(o, TransOp):
        inner = orientation(o.src, seen)
        if list(o.order.get_values()) == [0, 1]:
            return inner
        return {"acc": "trans", "trans": "acc"}.get(inner)
    if o.name in ("tile.dot", "mma.async_dot", "mma.wait"):
        return "acc"
    if o.name == "scf.for":
        return orientation(o.regions[0].blocks[0].last_op.operands[v.index], seen)
    if o.name == "scf.if":
        return _agree([orientation(r.blocks[0].last_op.operands[v.index], seen) for r in o.regions if r.blocks])
    if o.name.startswith(("arith.", "math.")) and len(o.results) == 1:
        return _agree([orientation(x, seen) for x in o.operands])
    return None


def _agree(ws: list[str | None]) -> str | None:
    known = {w for w in ws if w is not None}
    return known.pop() if len(known) == 1 else None


@dataclass
class Staging:
    """One operand to stage: the tile to store (as computed) and whether the wgmma reads
    the stored tile transposed."""
    dot: Operation
    index: int  # 0: A, 1: B
    value: SSAValue  # the tile written to shared memory
    transposed: bool  # the operand is tile.trans [1, 0] of the stored tile


def plan(dot: Operation) -> list[Staging]:
    """The operands of `dot` that wgmma cannot read where they are."""
    out = []
    for index, v in enumerate(dot.operands[:2]):
        if index == 1 and n_major_8bit(v):
            out.append(Staging(dot, index, v, True))  # stored as trans(v): K-major
            continue
        if is_shared(v) or not isinstance(v.type, TensorType):
            continue
        ori = orientation(v)
        if index == 0 and ori != "trans":
            continue  # register A (the accumulator fragment), or left to ws-lower-mma's checks
        o = v.owner
        if isinstance(o, TransOp) and list(o.order.get_values()) == [1, 0] and not is_shared(o.src):
            out.append(Staging(dot, index, o.src, True))
        elif ori == "trans":
            out.append(Staging(dot, index, v, True))  # the source is trans(v): stored after a trans
        else:
            out.append(Staging(dot, index, v, False))
    return out


def dots_to_stage(root: Operation) -> list[Staging]:
    """Every operand of the dots under `root` (warp-group branches or partitions) to stage."""
    return [s for o in root.walk() if isinstance(o, DOTS) and _in_partition(o) for s in plan(o)]


def _in_partition(o: Operation) -> bool:
    cur = o.parent_op()
    while cur is not None:
        if cur.name in ("nvgpu.wg.branch", "warp_group.partition"):
            return True
        cur = cur.parent_op()
    return False


def stored_shape(s: Staging) -> tuple[tuple[int, ...], object]:
    t = s.value.type
    if s.transposed and s.value is s.dot.operands[s.index]:  # stored as trans(value)
        return tuple(reversed(t.get_shape())), t.element_type
    return tuple(t.get_shape()), t.element_type


def staged_operand_bytes(module: Operation) -> int:
    """Shared memory the staging buffers of `module` will take (one per tile type, operand
    and branch or partition), for ws-hopper's choice of ring depth before the lowering."""
    keys = set()
    for s in dots_to_stage(module):
        part = s.dot.parent_op()
        while part.name not in ("nvgpu.wg.branch", "warp_group.partition"):
            part = part.parent_op()
        keys.add((id(part), stored_shape(s), s.index))
    return sum(round_up(prod(shp) * nbytes(et), 1024) for _, (shp, et), _ in keys)


# ----------------------------------------------------------------------------- the rewrite

def _named(op: Operation, name: str | None) -> Operation:
    if name:
        op.results[0].name_hint = name
    return op


class BranchStaging:
    """The staging of one warp-group branch."""

    def __init__(self, dispatch: DispatchOp, index: int, br: BranchOp):
        self.dispatch, self.br = dispatch, br
        self.barrier_id = 1 + index  # the branch's own named barrier (as the emitter numbers them)
        self.threads = br.num_warps * 32
        self.buffers: dict[tuple, SmemAllocOp] = {}
        self.readers: dict[tuple, list[Operation]] = {}

    def buffer(self, s: Staging, shape, et) -> SmemAllocOp:
        key = (shape, et, s.index)  # an A and a B of one dot never share a buffer
        if key not in self.buffers:
            row_bytes = shape[-1] * nbytes(et)
            if len(shape) != 2 or not slot_swizzle(row_bytes):
                raise error_at(s.dot, f"ws-stage-operands: operand {'AB'[s.index]} of this dot is a register tile "
                                      f"that wgmma must read from shared memory, but a row of {row_bytes} bytes "
                                      "has no wgmma swizzle (need 32, 64 or a multiple of 128 bytes)")
            alloc = SmemAllocOp(MemRefType(et, [1, *shape], memory_space=IntegerAttr(SMEM_SPACE, 64)))
            alloc.result.name_hint = (s.value.name_hint or "operand") + "_stage"
            alloc.location = s.dot.location
            self.dispatch.parent_block().insert_op_before(alloc, self.dispatch)
            self.buffers[key] = alloc
        return self.buffers[key]

    def stage(self, s: Staging, order: dict[Operation, int]) -> None:
        dot = s.dot
        shape, et = stored_shape(s)
        alloc = self.buffer(s, shape, et)
        readers = self.readers.setdefault((shape, et, s.index), [])
        new: list[Operation] = []
        value = s.value
        back = None
        if s.transposed and value is dot.operands[s.index]:  # the tile as computed: trans back
            back = TransOp(value)
            back.result.name_hint = (value.name_hint or "t") + "_t"
            value = back.result
            if not is_shared(s.value):
                new.append(back)
        if in_loop(dot, self.br) or any(order[r] < order[dot] for r in readers):
            pending = pending_before(dot, set(readers) | {dot}, self.br, order)
            if pending is not None:
                new.append(WaitOp([], pending))
            new.append(BarrierOp(self.barrier_id, self.threads))
        if back is not None and is_shared(s.value):
            new.append(back)  # a tile in a slot: read from there right where it is stored
        zero = _named(ConstantOp(IntegerAttr(0, i32)), None)
        view = SmemViewOp(alloc.result, zero.result)
        view.result.name_hint = (s.value.name_hint or "operand") + "_s"
        new += [zero, SmemStoreOp(value, alloc.result, zero.result), FenceProxyAsyncOp(),
                BarrierOp(self.barrier_id, self.threads), view]
        operand = view.result
        if s.transposed:
            tr = TransOp(view.result)
            tr.result.name_hint = (s.value.name_hint or "operand") + "_a"
            new.append(tr)
            operand = tr.result
        for o in new:
            o.location = dot.location
        dot.parent_block().insert_ops_before(new, dot)
        dot.operands[s.index] = operand
        readers.append(dot)


def in_loop(op: Operation, br: BranchOp) -> bool:
    """`op` may run more than once in its branch (an scf.for encloses it there)."""
    cur = op.parent_op()
    while cur is not None and cur is not br:
        if cur.name == "scf.for":
            return True
        cur = cur.parent_op()
    return False


def _contains(o: Operation, ops: set[Operation]) -> bool:
    return o in ops or (bool(o.regions) and any(x in ops for x in o.walk()))


def _retires(segment: list[Operation], last_reader: Operation | None) -> tuple[bool, int]:
    """(has the last reader retired by the end of `segment`, the async dots the segment
    issues): the ops that ran after the last reader, in order (top level only: a dot or
    wait nested in a region may not run, so nested dots are not counted and nested waits
    prove nothing, and the count is a lower bound)."""
    if isinstance(last_reader, DotOp):
        return True, 0  # a synchronous dot: lowered with wait_group 0 right after it
    issued, retired = 0, False
    for o in segment:
        if isinstance(o, DotOp):
            retired = True  # its wait_group 0 retires every group
        elif isinstance(o, AsyncDotOp):
            issued += 1
        elif isinstance(o, WaitOp) and o.num_pending <= issued:
            retired = True
    return retired, issued


def _enclosing_loops(op: Operation, br: BranchOp) -> list[Operation]:
    out, cur = [], op.parent_op()
    while cur is not None and cur is not br:
        if cur.name == "scf.for":
            out.append(cur)
        cur = cur.parent_op()
    return out


def pending_before(dot: Operation, readers: set[Operation], br: BranchOp, order: dict) -> int | None:
    """The `pending` of a wait before `dot`'s store that retires every earlier reader of the
    buffer (wgmma groups retire in order: the last reader is enough), or None when one has
    retired them already. Looked for in `dot`'s block: back to the last op that is (or holds)
    a reader; else, where the block is a loop's body, around the back edge to the last reader
    after `dot` (the previous iteration) and, where a reader may run before the loop, from
    the block's start. Every async dot of such a stretch was issued after that reader, so
    wait_group of their number retires it."""
    ops = list(dot.parent_block().ops)
    at = ops.index(dot)
    prefix, suffix = ops[:at], ops[at:]
    hits = [i for i, o in enumerate(prefix) if _contains(o, readers)]
    if hits:
        paths = [_retires(prefix[hits[-1] + 1:], prefix[hits[-1]])]
    else:
        paths = []
        loop = dot.parent_block().parent_op()
        if loop is not None and loop.name == "scf.for":
            back = [i for i, o in enumerate(suffix) if _contains(o, readers)]  # dot itself at least
            paths.append(_retires(suffix[back[-1] + 1:] + prefix, suffix[back[-1]]))
            inside = set(loop.walk())
            entry = any(r not in inside and (order[r] < order[loop] or
                                             set(_enclosing_loops(r, br)) & set(_enclosing_loops(loop, br)))
                        for r in readers)
        else:
            entry = True
        if entry:
            paths.append(_retires(prefix, None))
    if all(retired for retired, _ in paths):
        return None
    return min(issued for _, issued in paths)


def stage_module(module: ModuleOp) -> None:
    for d in [o for o in module.walk() if isinstance(o, DispatchOp)]:
        for idx, br in enumerate(d.branches):
            work = [s for o in br.body.walk() if isinstance(o, DOTS) for s in plan(o)]
            if not work:
                continue
            order = {o: i for i, o in enumerate(br.body.walk())}
            st = BranchStaging(d, idx, br)
            for s in work:
                st.stage(s, order)


@dataclass(frozen=True)
class StageOperandsPass(ModulePass):
    """Register tiles wgmma must read from shared memory (a transposed A, a B) are stored to a
    buffer of the branch, fenced and met on the branch's named barrier before the dot."""

    name = "ws-stage-operands"

    def apply(self, ctx, op: ModuleOp) -> None:
        stage_module(op)


