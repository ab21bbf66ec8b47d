"""Distributed tile IR -> LLVM IR text for sm_90a (Tawa §III-E and the thread-level
lowering), with inline PTX for mbarrier, TMA, wgmma, fences and setmaxnreg.

Input: a kernel after `ws-partition,ws-distribute` (one `warp_group.region` whose
partitions talk through `aref` rings). The lowering is driven by the ops and types
only; what it cannot lower is rejected with a located diagnostic (`error_at`).

How each level maps (see docs in README of wsdialects/lower):

* aref ring of depth D (payload = TMA-loaded tiles) -> D slots of 128B/64B/32B
  swizzled shared memory (1024-B aligned), a FULL and an EMPTY mbarrier per slot.
  FULL counts 1 arrival (the elected producer thread's `arrive.expect_tx` with the
  payload bytes; the TMA copies complete the transaction); EMPTY counts one arrival
  per consumer warp. Position k: slot k mod D, parity (k / D) & 1; put waits EMPTY
  with parity^1, get waits FULL with parity; consumed arrives on EMPTY after the
  wgmma reading the slot retired (`wgmma.wait_group 0` follows every dot).
* warp_group.partition -> a branch on the thread id; the warps of a partition are
  whole warp groups; `setmaxnreg.dec/inc` to the partition's register budget.
* 2-D tiles in a consumer -> the wgmma accumulator fragment (m64nN per warp group,
  row blocks of 64 split over the partition's warp groups); 1-D tiles are row or
  column slices evaluated per element where a 2-D use needs them; elementwise ops
  per register; pointer loads per element with masks (predicated PTX).
* tile.store through a pointer tile that is contiguous along a row (`_col_coef`) -> each
  warp stages its 16 fragment rows of a column chunk in padded shared memory
  (`bar.warp.sync`), reads them back row-wise and stores 16-byte vectors where the 8
  masks hold and the address is aligned, masked element stores otherwise; other pointer
  stores go element by element from the fragment (also with WSDIALECTS_SCALAR_STORES=1).
* nvgpu.wgmma ops (ws-lower-mma made them from tile.dot / mma.async_dot / mma.wait and
  checked what wgmma needs: A an MxK smem tile, B trans of an NxK smem tile, both
  K-contiguous) -> `wgmma.fence`, wgmma.mma_async m64nNk16 (f16/bf16) / k32 (fp8
  e4m3/e5m2) from shared-memory descriptors, `wgmma.commit_group`, `wgmma.wait_group N`.
* tile.desc_store -> the fragment written to shared memory, fence.proxy.async,
  a named barrier over the partition, one thread issues the TMA store.
* scf.if with results -> both branches, a phi per scalar / fragment register at the join.
* tiles in shared memory (shared_tiles.py): per-element reads at the swizzled address,
  nvgpu.smem.store (a computed aref payload), a register tile.desc_load (staged TMA load),
  warp_group.share (a shifted slot) and warp_group.gather (the cooperative groups stage
  their slices for group 0's TMA store and meet on a team barrier).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from wsdialects.diagnostics import error_at
from wsdialects.nvgpu import (
    DispatchOp,
    FenceMBarrierInitOp,
    FenceProxyAsyncOp,
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierCreateOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
    SetMaxNRegOp,
    SmemAllocOp,
    SmemStoreOp,
    SmemViewOp,
    TmaAsyncLoadOp,
    WgmmaCommitGroupOp,
    WgmmaFenceOp,
    WgmmaMmaAsyncOp,
    WgmmaWaitGroupOp,
)
from wsdialects.layout import SliceLayout, WgmmaLayout, column_blocks, layout_of, slot_swizzle
from wsdialects.lower.lower_layouts import is_free
from wsdialects.nvvm import BarrierOp
from wsdialects.tile import DescType, PtrType
from wsdialects.lower.shared_tiles import SHARED_TILE_OPS, SharedTiles, Staged, in_loop

try:  # fp8 types (xDSL 0.74 names)
    from xdsl.dialects.builtin import Float8E4M3FNType, Float8E5M2Type
except ImportError:  # pragma: no cover
    Float8E4M3FNType = Float8E5M2Type = ()

TRIPLE = "nvptx64-nvidia-cuda"
DATALAYOUT = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
REGFILE = 65536
SMEM_LIMIT = 232448  # bytes of shared memory a block may opt into on sm_90


# ----------------------------------------------------------------------------- types

def is_fp8(t: Attribute) -> bool:
    return bool(Float8E4M3FNType) and isinstance(t, (Float8E4M3FNType, Float8E5M2Type))


def fp8_name(t: Attribute) -> str:
    return "e4m3" if isinstance(t, Float8E4M3FNType) else "e5m2"


def llty(t: Attribute) -> str:
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, Float16Type):
        return "half"
    if isinstance(t, BFloat16Type):
        return "bfloat"
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if is_fp8(t):
        return "i8"
    if isinstance(t, PtrType):
        return "ptr addrspace(1)"
    raise TypeError(f"no LLVM type for {t}")


def bits_of(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, (Float16Type, BFloat16Type)):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    if is_fp8(t):
        return 8
    if isinstance(t, PtrType):
        return 64
    raise TypeError(f"no bit width for {t}")


def nbytes(t: Attribute) -> int:
    return max(1, bits_of(t) // 8)


def is_float(t: Attribute) -> bool:
    return isinstance(t, (Float16Type, BFloat16Type, Float32Type, Float64Type))


def shape_of(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def elem_of(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def _prod(xs) -> int:
    r = 1
    for x in xs:
        r *= x
    return r


def _round_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def swizzle_bytes(row_bytes: int) -> int | None:
    return row_bytes if row_bytes in (32, 64, 128) else None


SWIZZLE_CODE = {128: 1, 64: 2, 32: 3}


# ----------------------------------------------------------------------------- results

@dataclass
class ParamInfo:
    """How the runtime must pass one kernel argument."""
    name: str
    kind: str  # "desc" | "ptr" | "scalar"
    dtype: str  # element type name as in MLIR (f16, bf16, f32, i32, f8E4M3FN, ...)
    block: tuple[int, ...] = ()
    swizzle: int = 0  # bytes (128/64/32), 0 = none


@dataclass
class KernelInfo:
    name: str
    params: list[ParamInfo]
    num_threads: int
    smem_bytes: int
    partitions: list[tuple[str, int, int | None]] = field(default_factory=list)
    persistent_programs: int = 0  # ws-persistent: launch min(N, tiles) programs, pass the grid last


@dataclass
class Lowered:
    llvm_ir: str
    kernels: list[KernelInfo]


# ----------------------------------------------------------------------------- values

@dataclass
class Smem:
    """A tile resident in swizzled shared memory (an aref slot's payload). Rows wider than
    the swizzle are column blocks of `swizzle` bytes, `block_bytes` apart (0: one block)."""
    addr: str  # i32 shared address
    shape: tuple[int, ...]
    elem: Attribute
    swizzle: int
    trans: bool = False
    block_bytes: int = 0

    @property
    def row_stride(self) -> int:
        """Bytes from one stored row to the next (inside a column block)."""
        rows_len = self.shape[0] if self.trans else self.shape[-1]
        return self.swizzle if self.block_bytes else rows_len * nbytes(self.elem)


@dataclass
class Frag:
    """A tile held in registers, one per slot of its layout (`_Kernel.slots`); a row or
    column slice of the accumulator is also found by element index (`index`)."""
    regs: list[str]
    index: dict | None = None


@dataclass
class Layout:
    """Per-thread fragment coordinates of the partition running the code."""
    wg_count: int
    row_rt: str  # i32: wg*64 + 16*warp + lane/4
    col_rt: str  # i32: 2*(lane%4)
    tid_in_part: str
    lane: str
    threads: int
    barrier_id: int


# ----------------------------------------------------------------------------- emitter

class _Kernel(SharedTiles):
    def __init__(self, func: Operation):
        self.func = func
        self.lines: list[str] = []
        self.n = 0
        self.block = "entry"
        self.vals: dict[SSAValue, object] = {}
        self.memo: list[dict] = [{}]
        self.layout: Layout | None = None
        self.decls: set[str] = set()
        self.bufs: dict[SSAValue, tuple] = {}  # smem.alloc -> (offset, slot bytes, tile shape, elem, row bytes)
        self.bars: dict[SSAValue, int] = {}  # mbarrier.create -> offset
        self.smem_end = 0
        self.stage_off: dict[Operation, int] = {}
        self.desc_use: dict[SSAValue, tuple[str, int]] = {}
        self.store_stage: dict[Operation, tuple[int, dict]] = {}  # tile.store -> (smem offset, plan)
        self.wgmma_acc: dict[Operation, list[str]] = {}  # wgmma.mma_async -> accumulator computed before its fence
        self.wgmma_a: dict[Operation, list[str]] = {}  # wgmma.mma_async -> packed register A, before its fence

    # ---- text helpers
    def tmp(self, hint: str = "v") -> str:
        self.n += 1
        return f"%{hint}{self.n}"

    def emit(self, s: str) -> None:
        self.lines.append("  " + s)

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")
        self.block = name

    def newlabel(self, hint: str) -> str:
        self.n += 1
        return f"{hint}{self.n}"

    def op(self, rhs: str, hint: str = "v") -> str:
        r = self.tmp(hint)
        self.emit(f"{r} = {rhs}")
        return r

    def asm(self, text: str, cons: str, args: list[tuple[str, str]], ret: str = "void") -> str | None:
        text = text.replace("\\", "\\5C").replace('"', "\\22").replace("\n", "\\0A")
        a = ", ".join(f"{t} {v}" for t, v in args)
        call = f'call {ret} asm sideeffect "{text}", "{cons}"({a})'
        if ret == "void":
            self.emit(call)
            return None
        return self.op(call)

    def sreg(self, name: str) -> str:
        fn = f"llvm.nvvm.read.ptx.sreg.{name}"
        self.decls.add(f"declare i32 @{fn}()")
        return self.op(f"call i32 @{fn}()")

    def c32(self, v: int) -> str:
        return str(int(v))

    # ---- errors
    def fail(self, op: Operation, msg: str):
        raise error_at(op, msg)

    # ----------------------------------------------------------------- kernel
    def lower(self) -> tuple[str, KernelInfo]:
        f = self.func
        name = f.sym_name.data
        args = f.body.blocks[0].args
        dispatch = [o for o in f.body.blocks[0].ops if isinstance(o, DispatchOp)]
        if len(dispatch) != 1:
            self.fail(f, "the Hopper lowering needs a warp-specialized kernel (run ws-partition,ws-distribute first): "
                         f"expected one warp_group.region in @{name}, found {len(dispatch)}")
        nthreads = dispatch[0].num_threads

        # parameters
        params: list[ParamInfo] = []
        sig = []
        for i, a in enumerate(args):
            pname = a.name_hint or f"arg{i}"
            t = a.type
            if isinstance(t, DescType):
                tt = t.block
                params.append(ParamInfo(pname, "desc", str(elem_of(tt)), shape_of(tt)))
                sig.append(f"ptr %p{i}")
                self.vals[a] = ("desc", f"%p{i}", tt, len(params) - 1)
            elif isinstance(t, PtrType):
                params.append(ParamInfo(pname, "ptr", str(t.parameters[0])))
                sig.append(f"ptr addrspace(1) %p{i}")
                self.vals[a] = f"%p{i}"
            elif isinstance(t, (IntegerType, Float32Type, Float16Type, BFloat16Type, Float64Type)):
                params.append(ParamInfo(pname, "scalar", str(t)))
                sig.append(f"{llty(t)} %p{i}")
                self.vals[a] = f"%p{i}"
            else:
                self.fail(f, f"cannot pass kernel argument {i} of type {t}")
        self.params = params

        self.label("entry")
        self.tid = self.sreg("tid.x")
        raw = self.op("ptrtoint ptr addrspace(3) @__ws_smem to i64")
        raw32 = self.op(f"trunc i64 {raw} to i32")
        add = self.op(f"add i32 {raw32}, 1023")
        self.smem = self.op(f"and i32 {add}, -1024", "smem")

        # Shared memory: slot buffers (nvgpu.smem.alloc), TMA-store staging, then mbarriers.
        block = f.body.blocks[0]
        for o in block.ops:
            if isinstance(o, SmemAllocOp):
                self.plan_buffer(o)
        for o in f.walk():
            if o.name == "tile.desc_store":
                v = o.operands[-1]
                self.smem_end = _round_up(self.smem_end, 1024)
                self.stage_off[o] = self.smem_end
                self.smem_end += _prod(shape_of(v.type)) * nbytes(elem_of(v.type))
        self.plan_shared_tiles(f)  # register desc_loads' staging + mbarriers, gather teams
        bar_bytes = sum(8 * o.result.type.num.data for o in block.ops if isinstance(o, MBarrierCreateOp))
        # Pointer-tile stores staged per warp through shared memory (coalesced 16-byte
        # stores), while the budget allows; the others store from the fragment directly.
        if os.environ.get("WSDIALECTS_SCALAR_STORES") != "1":
            for o in f.walk():
                if o.name == "tile.store":
                    plan = self.plan_staged_store(o)
                    if plan is None:
                        continue
                    off = _round_up(self.smem_end, 128)
                    if off + plan["bytes"] + bar_bytes + 8 + 1024 > SMEM_LIMIT:
                        continue
                    self.store_stage[o] = (off, plan)
                    self.smem_end = off + plan["bytes"]
        bar_off = _round_up(self.smem_end, 8)
        for o in block.ops:
            if isinstance(o, MBarrierCreateOp):
                self.bars[o.result] = bar_off
                bar_off += 8 * o.result.type.num.data
        smem_bytes = bar_off + 1024
        if smem_bytes > SMEM_LIMIT:
            self.fail(f, f"@{name} needs {smem_bytes} bytes of shared memory (aref slots, staging, mbarriers), "
                         f"more than the {SMEM_LIMIT} a block can have on sm_90: use a smaller ring depth")

        pinfo: list = []
        self.pinfo = pinfo
        for o in block.ops:
            self.lower_op(o)
        self.emit("ret void")

        attrs = f'"nvvm.maxntid"="{nthreads}" "nvvm.minctasm"="1"'
        text = [f"define ptx_kernel void @{name}({', '.join(sig)}) #{{ATTR}} {{"] + self.lines + ["}"]
        info = KernelInfo(name, params, nthreads, smem_bytes, pinfo)
        pers = f.attributes.get("ws.persistent")
        if pers is not None:
            info.persistent_programs = pers.data["programs"].value.data
        return "\n".join(text), info, attrs

    # ----------------------------------------------------------------- shared memory, mbarriers
    def plan_buffer(self, alloc: SmemAllocOp) -> None:
        t = alloc.result.type
        shp = tuple(t.get_shape())
        if len(shp) != 3:
            self.fail(alloc, f"{t}: only slots of 2-D tiles can be lowered (TMA / wgmma layouts)")
        row_bytes = shp[-1] * nbytes(t.element_type)
        swz = self.buffer_swizzle(alloc, row_bytes)
        slot_bytes = _round_up(_prod(shp[1:]) * nbytes(t.element_type), 1024)
        off = _round_up(self.smem_end, 1024)
        self.smem_end = off + shp[0] * slot_bytes
        self.bufs[alloc.result] = (off, slot_bytes, shp[1:], t.element_type, row_bytes, swz)

    def buffer_swizzle(self, alloc: SmemAllocOp, row_bytes: int) -> int:
        """The swizzle of a slot buffer: the #layout.shared ws-lower-layouts gave the views of
        it (or, for a buffer no view reads, the swizzle TMA writes such rows with)."""
        t = alloc.result.type
        lays = {layout_of(u.operation.results[0].type) for u in alloc.result.uses
                if isinstance(u.operation, SmemViewOp)} - {None}
        if len(lays) > 1:
            self.fail(alloc, f"{t}: the slots are viewed in two layouts {sorted(map(str, lays))}")
        swz = next(iter(lays)).swizzle.data if lays else slot_swizzle(row_bytes)
        if not swz or swz != slot_swizzle(row_bytes):
            self.fail(alloc, f"{t}: a tile row of {row_bytes} bytes has no TMA/wgmma swizzle "
                             "(need 32, 64 or a multiple of 128 bytes per row)")
        return swz

    def slot_tile(self, buf: SSAValue, index: SSAValue) -> Smem:
        """Slot `index` of buffer `buf` as a shared-memory tile."""
        off, slot_bytes, shp, et, row_bytes, swz = self.bufs[buf]
        blocks = column_blocks(row_bytes, swz)
        return Smem(self.slot_addr(buf, index), tuple(shp), et, swz, block_bytes=shp[0] * swz if blocks > 1 else 0)

    def bar_addr(self, group: SSAValue, index: SSAValue) -> str:
        a = self.op(f"shl i32 {self.scalar(index)}, 3")
        return self.op(f"add i32 {self.op(f'add i32 {self.smem}, {self.bars[group]}')}, {a}", "bar")

    def wait(self, bar: str, parity: str) -> None:
        self.asm("{ .reg .pred P1; WAIT: mbarrier.try_wait.parity.shared::cta.b64 P1, [$0], $1; "
                 "@P1 bra DONE; bra WAIT; DONE: }", "r,r", [("i32", bar), ("i32", parity)])

    def slot_addr(self, buf: SSAValue, index: SSAValue) -> str:
        off, slot_bytes = self.bufs[buf][:2]
        m = self.op(f"mul i32 {self.scalar(index)}, {slot_bytes}")
        return self.op(f"add i32 {self.op(f'add i32 {self.smem}, {off}')}, {m}", "slot")

    def leader(self) -> str:
        """i32 that is 0 in the one thread that issues single-thread operations."""
        return self.layout.tid_in_part if self.layout is not None else self.tid

    def lower_nvgpu(self, o: Operation) -> None:
        n = o.name
        if isinstance(o, (SmemAllocOp, MBarrierCreateOp)):
            return  # planned up front
        if isinstance(o, MBarrierInitOp):
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; @p mbarrier.init.shared::cta.b64 [$1], $2; }",
                     "r,r,r", [("i32", self.tid), ("i32", self.bar_addr(o.barriers, o.index)),
                               ("i32", str(o.count.value.data))])
        elif isinstance(o, FenceMBarrierInitOp):
            self.asm("fence.mbarrier_init.release.cluster;", "", [])
        elif isinstance(o, FenceProxyAsyncOp):
            self.asm("fence.proxy.async.shared::cta;", "", [])
            if isinstance(o.prev_op, SmemStoreOp):  # all lanes' stores, fenced, before lane 0 arrives for the warp
                self.asm("bar.warp.sync -1;", "", [])
        elif isinstance(o, BarrierOp):
            if o.threads is None:
                self.asm(f"bar.sync {o.id.value.data};", "", [])
            else:
                self.asm(f"bar.sync {o.id.value.data}, {o.threads.value.data};", "", [])
        elif isinstance(o, MBarrierTryWaitParityOp):
            self.wait(self.bar_addr(o.barriers, o.index), self.scalar(o.parity))
        elif isinstance(o, MBarrierArriveExpectTxOp):
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; "
                     f"@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], {o.bytes.value.data}; }}",
                     "r,r", [("i32", self.leader()), ("i32", self.bar_addr(o.barriers, o.index))])
        elif isinstance(o, MBarrierArriveOp):
            who = self.layout.lane if o.scope.data == "per_warp" else self.leader()
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; @p mbarrier.arrive.shared::cta.b64 _, [$1]; }",
                     "r,r", [("i32", who), ("i32", self.bar_addr(o.barriers, o.index))])
        elif isinstance(o, TmaAsyncLoadOp):
            self.lower_tma_load(o)
        elif isinstance(o, SmemViewOp):
            self.vals[o.result] = self.slot_tile(o.buffer, o.index)
        elif isinstance(o, SetMaxNRegOp):
            self.asm(f"setmaxnreg.{o.action.data}.sync.aligned.u32 {o.regs.value.data};", "", [])
        elif isinstance(o, DispatchOp):
            self.lower_dispatch(o)
        elif isinstance(o, WgmmaFenceOp):
            self.wgmma_fence(o)
        elif isinstance(o, WgmmaMmaAsyncOp):
            self.lower_wgmma(o)
        elif isinstance(o, WgmmaCommitGroupOp):
            self.asm("wgmma.commit_group.sync.aligned;", "", [])
        elif isinstance(o, WgmmaWaitGroupOp):
            self.lower_mma_wait(o)
        elif isinstance(o, SmemStoreOp):
            self.lower_smem_store(o)
        else:
            self.fail(o, f"'{n}' cannot be lowered to Hopper code yet")

    def lower_tma_load(self, o: TmaAsyncLoadOp) -> None:
        """One TMA copy per column block of the slot (a box `swizzle` bytes wide: TMA's
        limit for swizzled boxes), all completing on the slot's FULL barrier."""
        _, dptr, dtt, pidx = self.vals[o.desc]
        S = self.slot_tile(o.buffer, o.index)
        eb = nbytes(S.elem)
        blocks = column_blocks(S.shape[1] * eb, S.swizzle)
        width = S.shape[1] // blocks
        self.use_desc(o, pidx, S.swizzle)
        self.use_box(o, pidx, (1,) * (len(o.coords) - 2) + (S.shape[0], width))
        bar = self.bar_addr(o.barriers, o.bar_index)
        coords = [self.scalar(x) for x in o.coords][::-1]  # innermost first
        cl = ", ".join(f"${4 + i}" for i in range(len(coords)))
        dp = self.op(f"ptrtoint ptr {dptr} to i64")
        for b in range(blocks):
            dst = self.op(f"add i32 {S.addr}, {b * S.block_bytes}") if b else S.addr
            inner = self.op(f"add i32 {coords[0]}, {b * width}") if b else coords[0]
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; "
                     f"@p cp.async.bulk.tensor.{len(coords)}d.shared::cluster.global.mbarrier::complete_tx::bytes "
                     f"[$1], [$2, {{{cl}}}], [$3]; }}",
                     ",".join(["r", "r", "l", "r"] + ["r"] * len(coords)),
                     [("i32", self.leader()), ("i32", dst), ("i64", dp),
                      ("i32", bar)] + [("i32", c) for c in [inner, *coords[1:]]])

    def lower_dispatch(self, d: DispatchOp) -> None:
        done = self.newlabel("wg_done")
        for idx, br in enumerate(d.branches):
            lo, hi = br.first_warp * 32, (br.first_warp + br.num_warps) * 32
            inside = self.newlabel("wg")
            nxt = self.newlabel("wg_next")
            c1 = self.op(f"icmp uge i32 {self.tid}, {lo}")
            c2 = self.op(f"icmp ult i32 {self.tid}, {hi}")
            c = self.op(f"and i1 {c1}, {c2}")
            self.emit(f"br i1 {c}, label %{inside}, label %{nxt}")
            self.label(inside)
            self.pinfo.append((br.role.data, br.num_warps, br.regs))
            tip = self.op(f"sub i32 {self.tid}, {lo}", "tip")
            lane = self.op(f"and i32 {self.tid}, 31", "lane")
            wg = self.op(f"lshr i32 {tip}, 7", "wg")
            warp = self.op(f"and i32 {self.op(f'lshr i32 {tip}, 5')}, 3", "warp")
            r0 = self.op(f"shl i32 {wg}, 6")
            r1 = self.op(f"shl i32 {warp}, 4")
            r2 = self.op(f"lshr i32 {lane}, 2")
            row_rt = self.op(f"add i32 {self.op(f'add i32 {r0}, {r1}')}, {r2}", "row")
            col_rt = self.op(f"shl i32 {self.op(f'and i32 {lane}, 3')}, 1", "col")
            self.layout = Layout(br.num_warps // 4, row_rt, col_rt, tip, lane, br.num_warps * 32, 1 + idx)
            self.memo = [{}]
            for o in br.body.blocks[0].ops:
                self.lower_op(o)
            self.emit(f"br label %{done}")
            self.label(nxt)
            self.layout = None
        self.emit(f"br label %{done}")
        self.label(done)

    # ----------------------------------------------------------------- ops
    def scalar(self, v: SSAValue) -> str:
        r = self.vals.get(v)
        if isinstance(r, str):
            return r
        if v.owner is not None and isinstance(v.owner, Operation) and v.owner.name == "arith.constant":
            self.lower_op(v.owner)
            return self.vals[v]
        raise error_at(v.owner if isinstance(v.owner, Operation) else self.func,
                       f"value {v.name_hint or ''} of type {v.type} is not available as a scalar here")

    def lower_op(self, o: Operation) -> None:
        n = o.name
        rt = o.results[0].type if o.results else None
        if n in ("tile.program_id", "tile.num_programs"):
            ax = o.axis.value.data
            self.vals[o.results[0]] = self.sreg(("ctaid." if n == "tile.program_id" else "nctaid.") + "xyz"[ax])
            return
        if n == "nvgpu.smem.load":
            return  # read element by element where it is used (_ev_op)
        if n.startswith("nvgpu.") or n.startswith("nvvm."):
            return self.lower_nvgpu(o)
        if n == "tile.trans":
            src = self.vals.get(o.operands[0])
            if isinstance(src, Smem) and list(o.order.get_values()) == [1, 0]:
                self.vals[o.results[0]] = Smem(src.addr, shape_of(rt), src.elem, src.swizzle, not src.trans,
                                               src.block_bytes)
                return
            return  # lazily (or rejected at the use)
        if n in ("tile.dot", "mma.async_dot", "mma.wait"):
            self.fail(o, f"'{n}' reaches the emitter: ws-lower-mma lowers the dots of a warp-group branch to "
                         "nvgpu.wgmma ops first")
        if n == "scf.if":
            return self.lower_if(o)
        if n == "scf.for":
            return self.lower_for(o)
        if n == "tile.store":
            return self.lower_store(o)
        if n == "tile.desc_store":
            return self.lower_desc_store(o)
        if n == "func.return":
            return
        if n in SHARED_TILE_OPS:  # staged TMA load, warp_group.share / gather (shared_tiles.py)
            return self.lower_shared_tile_op(o)
        if rt is not None and isinstance(rt, TensorType):
            return  # tensors are evaluated per element where they are used
        if n == "arith.constant":
            v = o.value
            if isinstance(v, IntegerAttr):
                self.vals[o.results[0]] = str(v.value.data) if llty(rt) != "i1" else ("true" if v.value.data else "false")
            elif isinstance(v, FloatAttr):
                self.vals[o.results[0]] = _fconst(v.value.data, rt)
            else:
                self.fail(o, f"unsupported constant {v}")
            return
        if len(o.results) == 1 and not o.regions:
            ins = [self.scalar(x) for x in o.operands]
            self.vals[o.results[0]] = self.elementwise(o, ins, [x.type for x in o.operands], rt)
            return
        self.fail(o, f"'{n}' cannot be lowered to Hopper code (not supported by the thread-level lowering)")

    # ---- elementwise: one LLVM instruction (or a few) per element
    def elementwise(self, o: Operation, ins: list[str], tys: list[Attribute], rt: Attribute) -> str:
        n = o.name
        et = elem_of(tys[0]) if tys else None
        ret = elem_of(rt)
        T = llty(et) if et is not None and not isinstance(et, PtrType) else None
        simple = {
            "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul", "arith.divsi": "sdiv",
            "arith.divui": "udiv", "arith.remsi": "srem", "arith.remui": "urem", "arith.andi": "and",
            "arith.ori": "or", "arith.xori": "xor", "arith.shli": "shl", "arith.shrsi": "ashr",
            "arith.shrui": "lshr", "arith.addf": "fadd", "arith.subf": "fsub", "arith.mulf": "fmul",
            "arith.divf": "fdiv", "arith.remf": "frem",
        }
        if n in simple:
            # float add / sub / mul may contract into FMA (what nvcc and Triton do by default):
            # the softmax's x * scale - max is one FFMA
            flags = " contract" if simple[n] in ("fadd", "fsub", "fmul") else ""
            return self.op(f"{simple[n]}{flags} {T} {ins[0]}, {ins[1]}")
        if n in ("arith.ceildivsi", "arith.floordivsi"):
            # The truncating quotient, moved by one where the remainder is not zero and the
            # exact quotient is positive (ceil: up) or negative (floor: down).
            q = self.op(f"sdiv {T} {ins[0]}, {ins[1]}")
            r = self.op(f"srem {T} {ins[0]}, {ins[1]}")
            nz = self.op(f"icmp ne {T} {r}, 0")
            sa = self.op(f"icmp slt {T} {ins[0]}, 0")
            sb = self.op(f"icmp slt {T} {ins[1]}, 0")
            ceil = n == "arith.ceildivsi"
            sign = self.op(f"icmp {'eq' if ceil else 'ne'} i1 {sa}, {sb}")
            fix = self.op(f"zext i1 {self.op(f'and i1 {nz}, {sign}')} to {T}")
            return self.op(f"{'add' if ceil else 'sub'} {T} {q}, {fix}")
        mm = {"arith.maxsi": "smax", "arith.minsi": "smin", "arith.maxui": "umax", "arith.minui": "umin",
              "arith.maximumf": "maximum", "arith.minimumf": "minimum", "arith.maxnumf": "maxnum",
              "arith.minnumf": "minnum"}
        if n in mm:
            fn = f"llvm.{mm[n]}.{_suffix(T)}"
            self.decls.add(f"declare {T} @{fn}({T}, {T})")
            return self.op(f"call {T} @{fn}({T} {ins[0]}, {T} {ins[1]})")
        if n == "arith.cmpi":
            pred = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"][o.predicate.value.data]
            return self.op(f"icmp {pred} {T} {ins[0]}, {ins[1]}")
        if n == "arith.cmpf":
            preds = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
                     "ule", "une", "uno", "true"]
            return self.op(f"fcmp {preds[o.predicate.value.data]} {T} {ins[0]}, {ins[1]}")
        if n == "arith.select":
            t2 = llty(elem_of(tys[1]))
            return self.op(f"select i1 {ins[0]}, {t2} {ins[1]}, {t2} {ins[2]}")
        if n == "arith.negf":
            return self.op(f"fneg {T} {ins[0]}")
        casts = {"arith.extf": "fpext", "arith.truncf": "fptrunc", "arith.sitofp": "sitofp",
                 "arith.uitofp": "uitofp", "arith.fptosi": "fptosi", "arith.fptoui": "fptoui",
                 "arith.extsi": "sext", "arith.extui": "zext", "arith.trunci": "trunc"}
        if n in casts:
            if is_fp8(ret) or is_fp8(et):
                self.fail(o, f"'{n}' to or from fp8 is not supported by the thread-level lowering")
            return self.op(f"{casts[n]} {T} {ins[0]} to {llty(ret)}")
        if n in ("arith.index_cast", "arith.index_castui"):
            return ins[0]
        # Transcendentals: the SFU's approximations (what NVPTX has no libcall for), in f32,
        # flushing subnormals (.ftz): without it ptxas wraps every MUFU in a range test and
        # two FMULs that scale subnormal inputs and results (the SASS of attention's loop:
        # 198 FMUL for 66 MUFU.EX2), and a softmax weight below 2^-126 is 0 either way.
        sfu = {"math.exp": ("ex2", 1.4426950408889634, 1.0), "math.exp2": ("ex2", 1.0, 1.0),
               "math.log": ("lg2", 1.0, 0.6931471805599453), "math.log2": ("lg2", 1.0, 1.0),
               "math.sin": ("sin", 1.0, 1.0), "math.cos": ("cos", 1.0, 1.0)}
        if n in sfu and T in ("float", "half", "bfloat"):
            fn, pre, post = sfu[n]
            x = ins[0] if T == "float" else self.op(f"fpext {T} {ins[0]} to float")
            if pre != 1.0:
                x = self.op(f"fmul float {x}, {_fconst(pre, Float32Type())}")
            y = self.asm(f"{fn}.approx.ftz.f32 $0, $1;", "=f,f", [("float", x)], "float")
            if post != 1.0:
                y = self.op(f"fmul float {y}, {_fconst(post, Float32Type())}")
            return y if T == "float" else self.op(f"fptrunc float {y} to {T}")
        um = {"math.sqrt": "sqrt", "math.absf": "fabs", "arith.absf": "fabs", "math.floor": "floor",
              "math.ceil": "ceil"}
        if n in um:
            fn = f"llvm.{um[n]}.{_suffix(T)}"
            self.decls.add(f"declare {T} @{fn}({T})")
            return self.op(f"call {T} @{fn}({T} {ins[0]})")
        if n == "math.rsqrt":
            fn = f"llvm.sqrt.{_suffix(T)}"
            self.decls.add(f"declare {T} @{fn}({T})")
            s = self.op(f"call {T} @{fn}({T} {ins[0]})")
            return self.op(f"fdiv {T} {_fconst(1.0, et)}, {s}")
        if n == "math.fma":
            fn = f"llvm.fma.{_suffix(T)}"
            self.decls.add(f"declare {T} @{fn}({T}, {T}, {T})")
            return self.op(f"call {T} @{fn}({T} {ins[0]}, {T} {ins[1]}, {T} {ins[2]})")
        if n == "math.tanh" and T == "float":
            return self.asm("tanh.approx.f32 $0, $1;", "=f,f", [("float", ins[0])], "float")
        if n == "math.absi":
            fn = f"llvm.abs.{T}"
            self.decls.add(f"declare {T} @{fn}({T}, i1)")
            return self.op(f"call {T} @{fn}({T} {ins[0]}, i1 false)")
        self.fail(o, f"'{n}' cannot be lowered to Hopper code (no per-element lowering)")

    # ---- per-element evaluation of tensors in the fragment layout
    def make_frag(self, t: TensorType, regs: list[str], op: Operation) -> Frag:
        if isinstance(layout_of(t), SliceLayout):
            return Frag(regs, {idx: s for s, idx in self.slots(t, op)})
        return Frag(regs)

    def slots(self, t: TensorType, op: Operation):
        """The (register, index) pairs of a tile of type `t`, which must be in this branch's
        wgmma accumulator fragment (its #layout.wgmma, given by ws-lower-layouts) or a row
        (dim = 1) or column (dim = 0) slice of it: per 64-row block, a thread holds rows
        r and r + 8 of the fragment; of N columns, c + 8j and c + 8j + 1."""
        L = self.layout
        lay = layout_of(t)
        if (L is not None and isinstance(lay, SliceLayout) and isinstance(lay.parent, WgmmaLayout)
                and lay.parent.groups == L.wg_count and len(shape_of(t)) == 1):
            (n,) = shape_of(t)
            if lay.dim.data == 1:
                if n % (64 * L.wg_count):
                    self.fail(op, f"a {n}-row slice does not fit the rows of {L.wg_count} warp group(s)")
                return list(enumerate(((L.row_rt, rep * L.wg_count * 64 + 8 * h),)
                                      for rep in range(n // (64 * L.wg_count)) for h in (0, 1)))
            if n % 8 or n > 256:
                self.fail(op, f"a {n}-column slice does not fit the accumulator's columns")
            return list(enumerate(((L.col_rt, 8 * j + b),) for j in range(n // 8) for b in (0, 1)))
        if L is None or not isinstance(lay, WgmmaLayout) or lay.groups != L.wg_count:
            self.fail(op, f"{t} is not in the wgmma accumulator fragment of this branch"
                          + ("" if lay is not None else " (it has no layout: run ws-lower-layouts)"))
        M, N = shape_of(t)
        if M % (64 * L.wg_count) or N % 8 or N > 256:
            self.fail(op, f"a {M}x{N} tile does not fit the wgmma accumulator layout of {L.wg_count} warp group(s): "
                          f"rows must be a multiple of {64 * L.wg_count}, columns a multiple of 8 and at most 256")
        reps = M // (64 * L.wg_count)
        out = []
        for rep in range(reps):
            for r in range(N // 2):
                rc = rep * L.wg_count * 64 + 8 * ((r >> 1) & 1)
                cc = 8 * (r >> 2) + (r & 1)
                out.append((len(out), ((L.row_rt, rc), (L.col_rt, cc))))
        return out

    def lookup(self, key):
        for m in reversed(self.memo):
            if key in m:
                return m[key]
        return None

    def ev(self, v: SSAValue, idx, slot: int | None):
        """The element of tensor `v` at logical index `idx` (one (runtime, const) pair per dim)."""
        r = self.vals.get(v)
        if isinstance(r, Frag) and r.index is not None:
            if idx not in r.index:
                self.fail(v.owner if isinstance(v.owner, Operation) else self.func,
                          "an element of a slice that is not in this thread's registers")
            return r.regs[r.index[idx]]
        if isinstance(r, Frag):
            if slot is None:
                self.fail(v.owner if isinstance(v.owner, Operation) else self.func,
                          "an accumulator tile is used through a slice (not supported)")
            return r.regs[slot]
        if isinstance(r, str):
            return r
        if isinstance(r, Smem):  # a slot or staged tile read element by element (swizzled address)
            return self.smem_load(v, r, idx)
        if not isinstance(v.type, TensorType):
            return self.scalar(v)
        key = (v, idx)
        hit = self.lookup(key)
        if hit is not None:
            return hit
        o = v.owner
        if not isinstance(o, Operation):
            self.fail(self.func, "a tensor block argument is not in the accumulator layout")
        res = self._ev_op(o, v, idx, slot)
        self.memo[-1][key] = res
        return res

    def _index(self, d) -> str:
        rt, c = d
        if rt == "0":
            return str(c)
        return self.op(f"add i32 {rt}, {c}") if c else rt

    def _ev_op(self, o: Operation, v: SSAValue, idx, slot):
        n = o.name
        t = v.type
        if n == "arith.constant":
            val = o.value
            if isinstance(val, DenseIntOrFPElementsAttr):
                vals = val.get_values()
                if len(set(vals)) != 1:
                    self.fail(o, "only splat dense constants can be lowered")
                x = vals[0]
                et = elem_of(t)
                if is_float(et):
                    return _fconst(float(x), et)
                if llty(et) == "i1":
                    return "true" if x else "false"
                return str(int(x))
            self.fail(o, f"unsupported constant {val}")
        if n == "tile.make_range":
            return self.op(f"add i32 {self._index(idx[0])}, {o.start.value.data}")
        if n == "tile.splat":
            return self.scalar(o.operands[0])
        if n == "tile.expand_dims":
            ax = o.axis.value.data
            return self.ev(o.operands[0], idx[:ax] + idx[ax + 1:], None)
        if n == "tile.broadcast":
            sshape = shape_of(o.operands[0].type)
            if sshape == shape_of(t):
                return self.ev(o.operands[0], idx, slot)
            sidx = tuple(("0", 0) if s == 1 else d for s, d in zip(sshape, idx))
            return self.ev(o.operands[0], sidx, None)
        if n == "tile.addptr":
            p = self.ev(o.operands[0], idx, slot)
            off = self.ev(o.operands[1], idx, slot)
            pt = elem_of(t).parameters[0]
            ot = llty(elem_of(o.operands[1].type))
            if ot != "i64":
                off = self.op(f"sext {ot} {off} to i64")
            return self.op(f"getelementptr {llty(pt)}, ptr addrspace(1) {p}, i64 {off}")
        if n == "tile.load":
            p = self.ev(o.operands[0], idx, slot)
            et = elem_of(t)
            mask = self.ev(o.mask, idx, slot) if o.mask is not None else None
            other = self.ev(o.other, idx, slot) if o.other is not None else _zero(et)
            return self.masked_load(p, et, mask, other)
        if n == "tile.reduce":
            return self.ev_reduce(o, v, idx)
        if n == "nvgpu.smem.load":
            return self.ev(o.operands[0], idx, None)
        if n == "tile.trans":
            order = list(o.order.get_values())
            src_idx = [None] * len(order)
            for i, a in enumerate(order):
                src_idx[a] = idx[i]
            return self.ev(o.operands[0], tuple(src_idx), None)
        if n == "arith.truncf" and slot is not None and self.paired_cvt(o) is not None:
            return self.ev_truncf_pair(o, v, idx, slot)
        if len(o.results) == 1 and not o.regions:
            ins = [self.ev(x, idx, slot) for x in o.operands]
            return self.elementwise(o, ins, [x.type for x in o.operands], t)
        self.fail(o, f"'{n}' cannot be lowered per element")

    @staticmethod
    def paired_cvt(o: Operation) -> str | None:
        """The packed conversion of an f32 -> f16 / bf16 truncation of an accumulator tile
        (cvt.rn.f16x2.f32 rounds two adjacent columns at once), or None."""
        src, dst = elem_of(o.operands[0].type), elem_of(o.results[0].type)
        if not (isinstance(src, Float32Type) and isinstance(layout_of(o.results[0].type), WgmmaLayout)):
            return None
        return {Float16Type: "f16x2", BFloat16Type: "bf16x2"}.get(type(dst))

    def ev_truncf_pair(self, o: Operation, v: SSAValue, idx, slot: int) -> str:
        """Element `slot` of a truncated accumulator tile, converted together with its
        neighbour column (slot ^ 1: same row, columns 2c and 2c + 1) by one cvt.rn.f16x2.f32;
        both halves are memoized."""
        slots = self.slots(v.type, o)
        lo, hi = slot & ~1, slot | 1
        xs = [self.ev(o.operands[0], slots[s][1], s) for s in (lo, hi)]
        packed = self.asm(f"cvt.rn.{self.paired_cvt(o)}.f32 $0, $1, $2;", "=r,f,f", [("float", xs[1]), ("float", xs[0])],
                          "i32")
        T = llty(elem_of(v.type))
        upper = self.op(f"lshr i32 {packed}, 16")
        halves = [self.op(f"bitcast i16 {self.op(f'trunc i32 {w} to i16')} to {T}") for w in (packed, upper)]
        for s, h in zip((lo, hi), halves):
            self.memo[-1][(v, slots[s][1])] = h
        return halves[slot - lo]

    # ---- reductions: per thread, then across the lanes that share a row
    def ev_reduce(self, o: Operation, v: SSAValue, idx) -> str:
        """Element `idx` (a row of the accumulator fragment) of `tile.reduce` along the
        columns: each thread combines its values of the row, then `shfl.sync.bfly` 1 and 2
        combine the four lanes that hold the row (every one of them ends with the result)."""
        L = self.layout
        src = o.operands[0]
        lay = layout_of(v.type)
        ax = o.axis.value.data
        if not (isinstance(lay, SliceLayout) and lay.dim.data == 1 and isinstance(lay.parent, WgmmaLayout)
                and ax == 1):
            self.fail(o, f"tile.reduce along axis {ax} of a tile in {layout_of(src.type)}: only reductions "
                         "along the rows of the wgmma accumulator fragment (axis 1, warp shuffles) are lowered; "
                         "across rows (axis 0) needs shared memory between warps")
        et = elem_of(v.type)
        bits = bits_of(et)
        if bits > 32:
            self.fail(o, f"tile.reduce of {et}: shuffles move 32 bits; 64-bit reductions are not lowered")
        row = idx[0]
        vals = [self.ev(src, sidx, s) for s, sidx in self.slots(src.type, o) if sidx[0] == row]
        if not vals:
            self.fail(o, "tile.reduce: a row index that is not in this thread's fragment")
        kind = o.kind.data
        T = llty(et)

        def comb(a: str, b: str) -> str:
            if kind == "sum":
                return self.op(f"{'fadd' if is_float(et) else 'add'} {T} {a}, {b}")
            fn = {("max", True): "maximum", ("min", True): "minimum",
                  ("max", False): "smax", ("min", False): "smin"}[(kind, is_float(et))]
            name = f"llvm.{fn}.{_suffix(T)}"
            self.decls.add(f"declare {T} @{name}({T}, {T})")
            return self.op(f"call {T} @{name}({T} {a}, {T} {b})")

        while len(vals) > 1:  # a balanced tree: shorter dependence chains than a left fold
            vals = [comb(vals[i], vals[i + 1]) if i + 1 < len(vals) else vals[i] for i in range(0, len(vals), 2)]
        acc = vals[0]
        for m in (1, 2):
            x = self.op(f"bitcast {T} {acc} to i{bits}") if is_float(et) else acc
            x = self.op(f"zext i{bits} {x} to i32") if bits < 32 else x
            y = self.asm(f"shfl.sync.bfly.b32 $0, $1, {m}, 31, -1;", "=r,r", [("i32", x)], "i32")
            y = self.op(f"trunc i32 {y} to i{bits}") if bits < 32 else y
            y = self.op(f"bitcast i{bits} {y} to {T}") if is_float(et) else y
            acc = comb(acc, y)
        return acc

    def lower_row_store(self, o: Operation) -> None:
        """`tile.store` of a row slice of the accumulator (#layout.slice<dim = 1>): the four
        lanes of a quad hold the same rows; lane 4q stores them."""
        L = self.layout
        v = o.operands[1]
        lay = layout_of(v.type)
        if not (lay.dim.data == 1 and isinstance(lay.parent, WgmmaLayout) and lay.parent.groups == L.wg_count):
            self.fail(o, f"tile.store of a tile in {lay}: only row slices of this branch's accumulator "
                         "fragment are stored")
        (M,) = shape_of(v.type)
        if M % (64 * L.wg_count):
            self.fail(o, f"a {M}-row slice does not fit the rows of {L.wg_count} warp group(s)")
        et = elem_of(v.type)
        first = self.op(f"icmp eq i32 {self.op(f'and i32 {L.lane}, 3')}, 0")
        for rep in range(M // (64 * L.wg_count)):
            for h in (0, 1):
                idx = ((L.row_rt, rep * L.wg_count * 64 + 8 * h),)
                p = self.ev(o.operands[0], idx, None)
                x = self.ev(v, idx, None)
                m = first if o.mask is None else self.op(f"and i1 {first}, {self.ev(o.mask, idx, None)}")
                self.masked_store(p, x, et, m)

    def masked_load(self, p: str, et: Attribute, mask: str | None, other: str) -> str:
        T = llty(et)
        if mask is None:
            return self.op(f"load {T}, ptr addrspace(1) {p}")
        bits = bits_of(et)
        it = f"i{bits}"
        ib = other if not is_float(et) else self.op(f"bitcast {T} {other} to {it}")
        m = self.op(f"zext i1 {mask} to i32")
        c = {8: "h", 16: "h", 32: "r", 64: "l"}[bits]
        ldt = {8: "u8", 16: "b16", 32: "b32", 64: "b64"}[bits]
        if bits == 8:
            ib = self.op(f"zext i8 {ib} to i16")
            it2 = "i16"
        else:
            it2 = it
        r = self.asm(f"{{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b{max(16, bits)} $0, $3; @p ld.global.{ldt} $0, [$1]; }}",
                     f"={c},l,r,{c}", [("ptr addrspace(1)", p), ("i32", m), (it2, ib)], it2)
        if bits == 8:
            r = self.op(f"trunc i16 {r} to i8")
        return r if not is_float(et) else self.op(f"bitcast {it} {r} to {T}")

    def masked_store(self, p: str, val: str, et: Attribute, mask: str | None) -> None:
        T = llty(et)
        if mask is None:
            self.emit(f"store {T} {val}, ptr addrspace(1) {p}")
            return
        bits = bits_of(et)
        it = f"i{bits}"
        iv = val if not is_float(et) else self.op(f"bitcast {T} {val} to {it}")
        if bits == 8:
            iv = self.op(f"zext i8 {iv} to i16")
            it = "i16"
        m = self.op(f"zext i1 {mask} to i32")
        c = {8: "h", 16: "h", 32: "r", 64: "l"}[bits]
        stt = {8: "u8", 16: "b16", 32: "b32", 64: "b64"}[bits]
        self.asm(f"{{ .reg .pred p; setp.ne.b32 p, $2, 0; @p st.global.{stt} [$0], $1; }}",
                 f"l,{c},r", [("ptr addrspace(1)", p), (it, iv), ("i32", m)])

    def frag_of(self, v: SSAValue, op: Operation) -> list[str]:
        r = self.vals.get(v)
        if isinstance(r, Frag):
            return r.regs
        return [self.ev(v, idx, s) for s, idx in self.slots(v.type, op)]

    # ---- TMA descriptors
    def use_desc(self, op: Operation, pidx: int, swz: int) -> None:
        p = self.params[pidx]
        if p.swizzle not in (0, swz) or (p.kind == "desc" and getattr(p, "_stored", False) and swz):
            self.fail(op, f"descriptor {p.name} is used with two shared-memory layouts")
        p.swizzle = swz

    def use_box(self, op: Operation, pidx: int, box: tuple[int, ...]) -> None:
        """The box every TMA access through descriptor `pidx` moves (one per descriptor:
        the runtime encodes it once)."""
        p = self.params[pidx]
        seen = getattr(p, "_box", None)
        if seen is not None and seen != box:
            self.fail(op, f"descriptor {p.name} is used with two TMA boxes {seen} and {box}")
        p._box = box  # type: ignore[attr-defined]
        p.block = box

    # ---- dot -> wgmma
    def _desc(self, addr: str, swz: int, lbo: int = 16) -> str:
        """A wgmma shared-memory descriptor of the tile at `addr`: stride-dimension offset
        8 rows of `swz` bytes, leading-dimension offset `lbo` bytes (used by N-major B only:
        the distance between its column blocks), `swz`-byte swizzle."""
        hi = ((lbo >> 4) << 16) | (((8 * swz) >> 4) << 32) | (SWIZZLE_CODE[swz] << 62)
        lo = self.op(f"and i32 {self.op(f'lshr i32 {addr}, 4')}, 16383")
        lo64 = self.op(f"zext i32 {lo} to i64")
        if hi >= 1 << 63:
            hi -= 1 << 64
        return self.op(f"or i64 {lo64}, {hi}", "desc")

    @staticmethod
    def _k_offset(S: Smem, kbytes: int) -> int:
        """Bytes from a K-major tile's start to its K offset `kbytes` (in the column block
        holding it)."""
        if S.block_bytes:
            return (kbytes // S.swizzle) * S.block_bytes + kbytes % S.swizzle
        return kbytes

    def wgmma_fence(self, o: Operation) -> None:
        """`wgmma.fence` orders earlier register writes before the wgmmas that follow: the
        accumulators of those wgmmas (evaluated lazily elsewhere) and their register A
        operands, converted and packed, are computed first."""
        nxt = o.next_op
        issued = set()
        while isinstance(nxt, WgmmaMmaAsyncOp):
            if nxt.acc not in issued:
                self.wgmma_acc[nxt] = self.frag_of(nxt.acc, nxt)
            if not isinstance(self.vals.get(nxt.a), Smem):
                self.wgmma_a[nxt] = self.register_a(nxt)
            issued.add(nxt.result)
            nxt = nxt.next_op
        self.asm("wgmma.fence.sync.aligned;", "", [])

    def register_a(self, o: WgmmaMmaAsyncOp) -> list[str]:
        """The register-A operand of `o`: its A tile is in the accumulator fragment
        (ws-lower-layouts), so k-block j of row block `rep` is the thread's registers
        8j..8j+7 of that block, packed pairwise into the four .f16x2 / .bf16x2 registers."""
        et = elem_of(o.a.type)
        T, bits = llty(et), bits_of(et)
        regs = self.frag_of(o.a, o)
        out = []
        for i in range(0, len(regs), 2):
            h = [self.op(f"bitcast {T} {r} to i{bits}") for r in regs[i:i + 2]]
            out.append(self.asm("mov.b32 $0, {$1, $2};", "=r,h,h", [("i16", h[0]), ("i16", h[1])], "i32"))
        return out

    def lower_wgmma(self, o: WgmmaMmaAsyncOp) -> None:
        """nvgpu.wgmma.mma_async (checked by ws-lower-mma) -> m64nNk16 / k32 wgmma.mma_async per
        row block of 64 and K step; A from a shared-memory descriptor or from registers
        (register A), B from a K-major (transposed NxK) or an N-major (KxN) descriptor;
        in flight until a wait."""
        a, b, acc = o.operands
        A, B = self.vals.get(a), self.vals.get(b)
        reg_a = not isinstance(A, Smem)
        if (not reg_a and A.trans) or not isinstance(B, Smem):
            self.fail(o, "nvgpu.wgmma.mma_async: A must be an MxK shared-memory tile or a register tile and B a "
                         "shared-memory tile (ws-lower-mma checks this)")
        et = elem_of(a.type)
        n_major = not B.trans
        if isinstance(et, Float16Type):
            kind, kstep = "f16.f16", 16
        elif isinstance(et, BFloat16Type):
            kind, kstep = "bf16.bf16", 16
        elif is_fp8(et) and not reg_a and not n_major:
            kind, kstep = f"{fp8_name(et)}.{fp8_name(et)}", 32
        else:
            self.fail(o, f"nvgpu.wgmma.mma_async on {et}: no wgmma for these operands (ws-lower-mma checks this)")
        M, K = shape_of(a.type)
        K2, N = B.shape
        L = self.layout
        eb = nbytes(et)
        regs = self.wgmma_acc.pop(o, None)
        if regs is None:
            regs = self.frag_of(acc, o)
        apacked = self.wgmma_a.pop(o, None) if reg_a else None
        if reg_a and apacked is None:
            apacked = self.register_a(o)
        self.slots(o.results[0].type, o)  # validates the accumulator
        nper = N // 2
        reps = M // (64 * L.wg_count)
        out = list(regs)
        bdesc0 = self._desc(B.addr, B.swizzle, B.block_bytes if n_major and B.block_bytes else 16)
        st = "{" + ", ".join(["float"] * nper) + "}"
        dl = ", ".join(f"${i}" for i in range(nper))
        for rep in range(reps):
            if not reg_a:
                # row block of this warp group: rep * W + wg
                wgi = self.op(f"lshr i32 {L.tid_in_part}, 7")
                rb = self.op(f"add i32 {self.op(f'mul i32 {wgi}, 64')}, {rep * L.wg_count * 64}")
                aoff = self.op(f"mul i32 {rb}, {A.row_stride}")
                adesc0 = self._desc(self.op(f"add i32 {A.addr}, {aoff}"), A.swizzle)
            cur = out[rep * nper:(rep + 1) * nper]
            for ks in range(K // kstep):
                if not reg_a:
                    astep = self._k_offset(A, ks * kstep * eb) >> 4
                    ad = self.op(f"add i64 {adesc0}, {astep}") if astep else adesc0
                bstep = (ks * kstep * B.row_stride if n_major else self._k_offset(B, ks * kstep * eb)) >> 4
                bd = self.op(f"add i64 {bdesc0}, {bstep}") if bstep else bdesc0
                if reg_a:
                    base = rep * (K // 2) // 2 + 4 * ks  # packed registers of k-block ks in row block rep
                    aregs = apacked[base:base + 4]
                    text = (f"{{ .reg .pred p; setp.ne.b32 p, ${nper + 5}, 0; "
                            f"wgmma.mma_async.sync.aligned.m64n{N}k{kstep}.f32.{kind} {{{dl}}}, "
                            f"{{${nper}, ${nper + 1}, ${nper + 2}, ${nper + 3}}}, ${nper + 4}, p, 1, 1, "
                            f"{int(n_major)}; }}")
                    cons = ",".join(["=f"] * nper + ["r"] * 4 + ["l", "r"] + [str(i) for i in range(nper)])
                    args = [("i32", x) for x in aregs] + [("i64", bd), ("i32", "1")]
                else:
                    tail = f", 1, 1, 0, {int(n_major)};" if kstep == 16 else ", 1, 1;"
                    text = (f"{{ .reg .pred p; setp.ne.b32 p, ${nper + 2}, 0; "
                            f"wgmma.mma_async.sync.aligned.m64n{N}k{kstep}.f32.{kind} {{{dl}}}, ${nper}, ${nper + 1}, p{tail} }}")
                    cons = ",".join(["=f"] * nper + ["l", "l", "r"] + [str(i) for i in range(nper)])
                    args = [("i64", ad), ("i64", bd), ("i32", "1")]
                res = self.asm(text, cons, args + [("float", x) for x in cur], st)
                cur = [self.op(f"extractvalue {st} {res}, {i}") for i in range(nper)]
            out[rep * nper:(rep + 1) * nper] = cur
        self.vals[o.result] = Frag(out)  # in flight until an nvgpu.wgmma.wait_group

    def wgmma_wait(self, regs: list[str], pending: int) -> list[str]:
        """`wgmma.wait_group pending`; the accumulators pass through the asm so that no
        read of them is scheduled before the wait."""
        total = len(regs)
        st = "{" + ", ".join(["float"] * total) + "}"
        res = self.asm(f"wgmma.wait_group.sync.aligned {pending};",
                       ",".join(["=f"] * total + [str(i) for i in range(total)]), [("float", x) for x in regs], st)
        return [self.op(f"extractvalue {st} {res}, {i}") for i in range(total)]

    def lower_mma_wait(self, o: Operation) -> None:
        pending = o.pending.value.data
        groups = [self.frag_of(v, o) for v in o.operands]
        flat = self.wgmma_wait([r for g in groups for r in g], pending)
        i = 0
        for r, g in zip(o.results, groups):
            self.vals[r] = Frag(flat[i:i + len(g)])
            i += len(g)

    def lower_if(self, o: Operation) -> None:
        """Both branches, then a phi per result at the join (like lower_for's loop-carried
        values): scalars one phi, tiles one per fragment register."""
        for r in o.results:
            try:
                llty(elem_of(r.type))
            except TypeError:
                self.fail(o, f"scf.if: a result of type {r.type} cannot be lowered")
        cond = self.scalar(o.operands[0])
        then_l, else_l, join = self.newlabel("if_then"), self.newlabel("if_else"), self.newlabel("if_join")
        self.emit(f"br i1 {cond}, label %{then_l}, label %{else_l}")
        incoming = []  # (block, one register list per result) of each branch
        for lab, region in ((then_l, o.regions[0]), (else_l, o.regions[1] if len(o.regions) > 1 else None)):
            self.label(lab)
            self.memo.append({})
            ys = []
            if region is not None and region.blocks:
                for bo in region.blocks[0].ops:
                    if bo.name == "scf.yield":
                        ys = [self.frag_of(y, o) if isinstance(y.type, TensorType) else [self.scalar(y)]
                              for y in bo.operands]
                    else:
                        self.lower_op(bo)
            self.memo.pop()
            incoming.append((self.block, ys))
            self.emit(f"br label %{join}")
        self.label(join)
        (b0, ys0), (b1, ys1) = incoming
        for i, r in enumerate(o.results):
            ty = llty(elem_of(r.type))
            regs = [self.op(f"phi {ty} [{x}, %{b0}], [{y}, %{b1}]", "phi") for x, y in zip(ys0[i], ys1[i])]
            self.vals[r] = self.make_frag(r.type, regs, o) if isinstance(r.type, TensorType) else regs[0]

    # ---- scf.for
    def lower_for(self, o: Operation) -> None:
        lb, ub, step = (self.scalar(x) for x in o.operands[:3])
        inits = list(o.operands[3:])
        body: Block = o.body.blocks[0]
        iv = body.args[0]
        T = llty(iv.type)
        carried = []  # (arg, kind, init list)
        for a, init in zip(body.args[1:], inits):
            if isinstance(a.type, TensorType):
                carried.append((a, "frag", self.frag_of(init, o)))
            else:
                carried.append((a, "scalar", [self.scalar(init)]))
        pre = self.block
        hdr, bod, ext = self.newlabel("for_hdr"), self.newlabel("for_body"), self.newlabel("for_exit")
        self.emit(f"br label %{hdr}")
        self.label(hdr)
        ivn = self.tmp("iv")
        phi_at = len(self.lines)
        self.lines.append(None)  # placeholder for the iv phi
        phis = []
        for a, kind, init in carried:
            names = [self.tmp("c") for _ in init]
            idxs = []
            for nm in names:
                idxs.append(len(self.lines))
                self.lines.append(None)
            phis.append((names, idxs))
            self.vals[a] = self.make_frag(a.type, names, o) if kind == "frag" else names[0]
        cond = self.op(f"icmp slt {T} {ivn}, {ub}")
        self.emit(f"br i1 {cond}, label %{bod}, label %{ext}")
        self.label(bod)
        self.vals[iv] = ivn
        self.memo.append({})
        yielded = None
        for bo in body.ops:
            if bo.name == "scf.yield":
                yielded = list(bo.operands)
                break
            self.lower_op(bo)
        ynames = []
        for (a, kind, init), y in zip(carried, yielded or []):
            ynames.append(self.frag_of(y, o) if kind == "frag" else [self.scalar(y)])
        nxt = self.op(f"add {T} {ivn}, {step}")
        latch = self.block
        self.emit(f"br label %{hdr}")
        self.memo.pop()
        self.lines[phi_at] = f"  {ivn} = phi {T} [{lb}, %{pre}], [{nxt}, %{latch}]"
        for (a, kind, init), (names, idxs), ys in zip(carried, phis, ynames):
            ty = "float" if kind == "frag" else llty(a.type)
            if kind == "frag":
                ty = llty(elem_of(a.type))
            for nm, li, i0, y in zip(names, idxs, init, ys):
                self.lines[li] = f"  {nm} = phi {ty} [{i0}, %{pre}], [{y}, %{latch}]"
        self.label(ext)
        for r, (a, kind, init) in zip(o.results, carried):
            self.vals[r] = self.vals[a]

    # ---- stores
    def lower_store(self, o: Operation) -> None:
        if o in self.store_stage:
            return self.lower_staged_store(o, *self.store_stage[o])
        v = o.operands[1]
        et = elem_of(v.type)
        if isinstance(layout_of(v.type), SliceLayout):
            return self.lower_row_store(o)
        for s, idx in self.slots(v.type, o):
            p = self.ev(o.operands[0], idx, s)
            x = self.ev(v, idx, s)
            m = self.ev(o.mask, idx, s) if o.mask is not None else None
            self.masked_store(p, x, et, m)

    # ---- staged pointer-tile stores (coalesced epilogue)
    def _col_coef(self, v: SSAValue, d: int) -> int | None:
        """How far (in elements; for pointers in pointee elements) `v` moves per step of its
        index along dimension `d`, when that is one constant; None when unknown."""
        t = v.type
        if not isinstance(t, TensorType):
            return 0
        o = v.owner
        if not isinstance(o, Operation):
            return None
        n = o.name
        if n in ("tile.splat", "arith.constant"):
            return 0
        if n == "tile.make_range":
            return 1
        if n == "tile.expand_dims":
            ax = o.axis.value.data
            return 0 if d == ax else self._col_coef(o.operands[0], d - (d > ax))
        if n == "tile.broadcast":
            sshape = shape_of(o.operands[0].type)
            return 0 if sshape[d] == 1 else self._col_coef(o.operands[0], d)
        if n == "tile.trans":
            return self._col_coef(o.operands[0], list(o.order.get_values())[d])
        if n in ("arith.addi", "tile.addptr", "arith.subi"):
            a, b = (self._col_coef(x, d) for x in o.operands[:2])
            if a is None or b is None:
                return None
            return a - b if n == "arith.subi" else a + b
        if n in ("arith.extsi", "arith.index_cast"):
            return self._col_coef(o.operands[0], d)
        if n in ("arith.muli", "arith.shli"):
            a, b = (self._col_coef(x, d) for x in o.operands)
            if a == 0 and b == 0:
                return 0
            cst = _splat_int(o.operands[1])
            if n == "arith.shli":
                return None if a is None or cst is None or b != 0 else a << cst
            if cst is not None and b == 0 and a is not None:
                return a * cst
            cst = _splat_int(o.operands[0])
            if cst is not None and a == 0 and b is not None:
                return b * cst
            return None
        if o.regions or len(o.results) != 1:
            return None
        return 0 if all(self._col_coef(x, d) == 0 for x in o.operands) else None

    def plan_staged_store(self, o: Operation) -> dict | None:
        """A `tile.store` of a 2-D tile whose pointers are contiguous along the rows (one
        element per column step) is staged through shared memory: each warp writes its 16
        fragment rows of a column chunk, then stores them back row-wise with 16-byte
        vectors (masks and alignment checked per vector, element stores otherwise)."""
        ptrs, v = o.operands[0], o.operands[1]
        shp = shape_of(v.type)
        if len(shp) != 2:
            return None
        et = elem_of(v.type)
        try:
            bits = bits_of(et)
        except TypeError:
            return None
        if bits not in (8, 16, 32) or shp[1] % 8:
            return None
        if not (is_free(ptrs, {}) and (o.mask is None or is_free(o.mask, {}))):
            return None
        if self._col_coef(ptrs, 1) != 1:
            return None
        br = o.parent_op()
        while br is not None and br.name != "nvgpu.wg.branch":
            br = br.parent_op()
        if br is None or br.num_warps % 4:
            return None
        esize = bits // 8
        cw = 128 // esize
        while shp[1] % cw:
            cw //= 2
        if cw * esize < 32:  # at least two 16-byte vectors per row
            return None
        stride = cw * esize + max(16, 8 * esize)  # padded rows: conflict-free fragment writes
        return {"cw": cw, "stride": stride, "esize": esize, "bits": bits,
                "bytes": br.num_warps * 16 * stride}

    def lower_staged_store(self, o: Operation, off: int, plan: dict) -> None:
        L = self.layout
        ptrs, v = o.operands[0], o.operands[1]
        et = elem_of(v.type)
        M, N = shape_of(v.type)
        slots = self.slots(v.type, o)
        cw, stride, esize, bits = plan["cw"], plan["stride"], plan["esize"], plan["bits"]
        vec = 16 // esize
        lpr = cw // vec  # lanes per staged row
        rpi = 32 // lpr  # rows per vector instruction
        nper = N // 2
        reps = M // (64 * L.wg_count)
        pt = f"i{2 * bits}"
        pc = {16: "h", 32: "r", 64: "l"}[2 * bits]
        warp = self.op(f"lshr i32 {L.tid_in_part}, 5")
        wofs = self.op(f"mul i32 {warp}, {16 * stride}")
        wofs = self.op(f"add i32 {wofs}, {off}")
        wbase = self.op(f"add i32 {self.smem}, {wofs}", "stg")
        frow = self.op(f"lshr i32 {L.lane}, 2")
        t1 = self.op(f"mul i32 {frow}, {stride}")
        t2 = self.op(f"mul i32 {L.col_rt}, {esize}")
        wbase_w = self.op(f"add i32 {wbase}, {self.op(f'add i32 {t1}, {t2}')}")
        rrow = self.op(f"udiv i32 {L.lane}, {lpr}")
        rcol = self.op(f"mul i32 {self.op(f'urem i32 {L.lane}, {lpr}')}, {vec}", "rcol")
        t1 = self.op(f"mul i32 {rrow}, {stride}")
        t2 = self.op(f"mul i32 {rcol}, {esize}")
        wbase_r = self.op(f"add i32 {wbase}, {self.op(f'add i32 {t1}, {t2}')}")
        g0 = self.op(f"add i32 {self.op(f'sub i32 {L.row_rt}, {frow}')}, {rrow}", "grow")
        T = llty(et)

        def as_int(x: str) -> str:
            return self.op(f"bitcast {T} {x} to i{bits}") if is_float(et) else x

        for rep in range(reps):
            for c in range(N // cw):
                for r in range(c * cw // 2, (c + 1) * cw // 2, 2):
                    s0 = rep * nper + r
                    x0 = self.op(f"zext i{bits} {as_int(self.ev(v, slots[s0][1], s0))} to {pt}")
                    x1 = self.op(f"zext i{bits} {as_int(self.ev(v, slots[s0 + 1][1], s0 + 1))} to {pt}")
                    pk = self.op(f"or {pt} {x0}, {self.op(f'shl {pt} {x1}, {bits}')}")
                    lo = 8 * ((r >> 1) & 1) * stride + (8 * ((r >> 2) - c * cw // 8)) * esize
                    addr = self.op(f"add i32 {wbase_w}, {lo}") if lo else wbase_w
                    self.asm(f"st.shared.b{2 * bits} [$0], $1;", f"r,{pc}", [("i32", addr), (pt, pk)])
                self.asm("bar.warp.sync -1;", "", [])
                for it in range(16 // rpi):
                    lo = it * rpi * stride
                    addr = self.op(f"add i32 {wbase_r}, {lo}") if lo else wbase_r
                    st4 = "{i32, i32, i32, i32}"
                    res = self.asm("ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r", [("i32", addr)], st4)
                    words = [self.op(f"extractvalue {st4} {res}, {i}") for i in range(4)]
                    ridx = (g0, rep * L.wg_count * 64 + it * rpi)
                    idxs = [(ridx, (rcol, c * cw + j)) for j in range(vec)]
                    p0 = self.ev(ptrs, idxs[0], None)
                    pint = self.op(f"ptrtoint ptr addrspace(1) {p0} to i64")
                    ok = self.op(f"icmp eq i64 {self.op(f'and i64 {pint}, 15')}, 0")
                    masks = [self.ev(o.mask, ix, None) for ix in idxs] if o.mask is not None else []
                    for m in masks:
                        ok = self.op(f"and i1 {ok}, {m}")
                    fast, slow, join = self.newlabel("st_vec"), self.newlabel("st_elem"), self.newlabel("st_join")
                    self.emit(f"br i1 {ok}, label %{fast}, label %{slow}")
                    self.label(fast)
                    self.asm("st.global.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r",
                             [("ptr addrspace(1)", p0)] + [("i32", w) for w in words])
                    self.emit(f"br label %{join}")
                    self.label(slow)
                    self.memo.append({})
                    for j, ix in enumerate(idxs):
                        w = words[j * bits // 32]
                        sh = (j * bits) % 32
                        e = self.op(f"lshr i32 {w}, {sh}") if sh else w
                        e = self.op(f"trunc i32 {e} to i{bits}") if bits < 32 else e
                        if is_float(et):
                            e = self.op(f"bitcast i{bits} {e} to {T}")
                        p = p0 if j == 0 else self.ev(ptrs, ix, None)
                        self.masked_store(p, e, et, masks[j] if masks else None)
                    self.memo.pop()
                    self.emit(f"br label %{join}")
                    self.label(join)
                self.asm("bar.warp.sync -1;", "", [])

    def lower_desc_store(self, o: Operation) -> None:
        desc = self.vals[o.operands[0]]
        _, dptr, dtt, pidx = desc
        v = o.operands[-1]
        shp = shape_of(v.type)
        et = elem_of(v.type)
        p = self.params[pidx]
        if p.swizzle:
            self.fail(o, f"descriptor {p.name} is used for both TMA loads (swizzled) and a TMA store (plain)")
        p._stored = True  # type: ignore[attr-defined]
        self.use_box(o, pidx, (1,) * (len(o.operands) - 4) + tuple(shp))
        if (shp[-1] * nbytes(et)) % 16:
            self.fail(o, "tile.desc_store: a row of the tile must be a multiple of 16 bytes")
        L = self.layout
        staged = self.vals.get(v)
        if isinstance(staged, Staged):  # warp_group.gather wrote it, the team met: only the store is left
            return self.tma_store(o, staged.addr)
        if in_loop(o):  # the last store (one thread, waited for) has read the staging buffer
            self.asm(f"bar.sync {L.barrier_id}, {L.threads};", "", [])
        stage = self.op(f"add i32 {self.smem}, {self.stage_off[o]}", "stage")
        bits = bits_of(et)
        c = {8: "h", 16: "h", 32: "r", 64: "l"}[bits]
        for s, idx in self.slots(v.type, o):
            x = self.ev(v, idx, s)
            row = self._index(idx[0])
            col = self._index(idx[1])
            lin = self.op(f"add i32 {self.op(f'mul i32 {row}, {shp[1]}')}, {col}")
            addr = self.op(f"add i32 {stage}, {self.op(f'mul i32 {lin}, {nbytes(et)}')}")
            it = f"i{bits}"
            iv = x if not is_float(et) else self.op(f"bitcast {llty(et)} {x} to {it}")
            if bits == 8:
                iv = self.op(f"zext i8 {iv} to i16")
                it = "i16"
            self.asm(f"st.shared.b{max(bits, 8)} [$0], $1;", f"r,{c}", [("i32", addr), (it, iv)])
        self.asm("fence.proxy.async.shared::cta;", "", [])
        self.asm(f"bar.sync {L.barrier_id}, {L.threads};", "", [])
        self.tma_store(o, stage)


def _suffix(T: str) -> str:
    return {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}.get(T, T)


def _fconst(x: float, t: Attribute) -> str:
    import struct
    if isinstance(t, (Float32Type, Float16Type, Float64Type)):
        # LLVM wants double-precision hex for half/float constants that are exactly representable
        if isinstance(t, Float32Type):
            x = struct.unpack("f", struct.pack("f", x))[0]
        elif isinstance(t, Float16Type):
            import numpy as np
            x = float(np.float16(x))
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", x))[0]
    if isinstance(t, BFloat16Type):
        b = struct.unpack("<I", struct.pack("<f", x))[0] >> 16
        return "0xR%04X" % b
    raise TypeError(t)


def _splat_int(v: SSAValue) -> int | None:
    """The integer of a splat constant tensor (arith.constant dense / tile.splat of a constant)."""
    o = v.owner
    if not isinstance(o, Operation):
        return None
    if o.name == "tile.splat":
        return _splat_int(o.operands[0])
    if o.name == "arith.constant":
        val = o.value
        if isinstance(val, IntegerAttr):
            return val.value.data
        if isinstance(val, DenseIntOrFPElementsAttr):
            xs = set(val.get_values())
            if len(xs) == 1:
                x = xs.pop()
                return int(x) if isinstance(x, int) else None
    return None


def _zero(t: Attribute) -> str:
    if is_float(t):
        return _fconst(0.0, t)
    return "0"


# ----------------------------------------------------------------------------- module

def lower_to_nvgpu(module: ModuleOp) -> ModuleOp:
    """`module` with aref rings, warp groups and the dots of warp-group branches lowered
    and every tile of a branch given its layout (ws-lower-aref, ws-lower-warp-groups,
    ws-lower-mma, ws-lower-layouts: those the module still needs); a lowered copy if
    the module needed any, else the module itself."""
    from wsdialects.diagnostics import verify
    from wsdialects.lower.lower_aref import LowerArefPass
    from wsdialects.lower.lower_layouts import LowerLayoutsPass, needs_layouts
    from wsdialects.lower.lower_mma import LowerMmaPass, needs_lowering
    from wsdialects.lower.lower_warp_groups import LowerWarpGroupsPass

    if any(o.name.startswith(("aref.", "warp_group.region")) for o in module.walk()):
        passes = [LowerArefPass(), LowerWarpGroupsPass(), LowerMmaPass(), LowerLayoutsPass()]
    elif needs_lowering(module):
        passes = [LowerMmaPass(), LowerLayoutsPass()]
    elif needs_layouts(module):
        passes = [LowerLayoutsPass()]
    else:
        return module
    module = module.clone()
    for p in passes:
        p.apply(None, module)
        verify(module)
    return module


def lower_module(module: ModuleOp) -> Lowered:
    """LLVM IR text of every `tile.kernel` function of a warp-specialized module (after
    ws-specialize, or after the lowering passes of ws-hopper)."""
    module = lower_to_nvgpu(module)
    bodies, infos, decls, attrs = [], [], set(), []
    for op in module.walk():
        if op.name == "func.func" and "tile.kernel" in op.attributes:
            k = _Kernel(op)
            text, info, attr = k.lower()
            i = len(attrs)
            bodies.append(text.replace("#{ATTR}", f"#{i}"))
            attrs.append(f"attributes #{i} = {{ {attr} }}")
            infos.append(info)
            decls |= k.decls
    if not bodies:
        raise error_at(module, "no tile.kernel function to lower")
    head = [f'target datalayout = "{DATALAYOUT}"', f'target triple = "{TRIPLE}"', "",
            "@__ws_smem = external addrspace(3) global [0 x i8], align 1024", ""]
    text = "\n".join(head + bodies + [""] + sorted(decls) + [""] + attrs) + "\n"
    return Lowered(text, infos)
