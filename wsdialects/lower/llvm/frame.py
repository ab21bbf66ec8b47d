"""The kernel frame of the LLVM emitter: parameters, the shared-memory plan (slot
buffers of aref rings, each 1024-B aligned, rows wider than 128 B as column blocks; TMA-store
and staged-load buffers; staged pointer-store buffers while the budget allows; mbarriers),
the dispatch into warp-group branches (thread ranges, per-branch fragment coordinates) and
the walk that hands each op to the mixin that lowers it."""

from __future__ import annotations

import itertools
import os

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from wsdialects.diagnostics import error_at
from wsdialects.nvgpu import (
    STAGING_ATTR,
    DispatchOp,
    MBarrierCreateOp,
    SmemAllocOp,
    SmemViewOp,
    staging_alloc,
)
from wsdialects.layout import BlockedLayout, TransposeCopyLayout, column_blocks, layout_of, slot_swizzle
from wsdialects.fragments import A8_COL_BITS, ACC_COL_BITS, ACC_ROW_BITS
from wsdialects.tile import DescArrayType, DescType, PtrType
from wsdialects.lower.llvm.shared_address import bits_below
from wsdialects.lower.llvm.shared_tiles import SHARED_TILE_OPS
from wsdialects.lower.store_staging import staging_pools
from wsdialects.attributes import ctas_per_sm
from wsdialects.nvgpu.types import smem_per_cta
from wsdialects.lower.llvm.types import BranchCoords, KernelInfo, ParamInfo, Smem, elem_of, fconst, llty, nbytes, prod, round_up, shape_of


class KernelFrame:
    """The emitter state (lines, values, memo, shared-memory offsets) and the walk over a kernel. A mixin of `Kernel` (kernel.py), over its emitter state."""

    def __init__(self, func: Operation):
        self.func = func
        self.lines: list[str] = []
        self.n = 0
        self.block = "entry"
        self.vals: dict[SSAValue, object] = {}
        self.memo: list[dict] = [{}]
        self.layout: BranchCoords | None = None
        self.decls: set[str] = set()
        self.types: dict[str, str] = {}  # identified struct types of asm results: name -> definition
        self.bufs: dict[SSAValue, tuple] = {}  # smem.alloc -> (offset, slot bytes, tile shape, elem, row bytes)
        self.bars: dict[SSAValue, int] = {}  # mbarrier.create -> offset
        self.smem_end = 0
        self.stage_off: dict[Operation, int] = {}
        self.desc_use: dict[SSAValue, tuple[str, int]] = {}
        self.store_stage: dict[Operation, tuple[int, dict]] = {}  # tile.store -> (smem offset, plan)
        self.wgmma_acc: dict[Operation, list[str]] = {}  # wgmma.mma_async -> accumulator computed before its fence
        self.wgmma_a: dict[Operation, list[str]] = {}  # wgmma.mma_async -> packed register A, before its fence
        self.byte_src: dict[str, tuple[str, int]] = {}  # an i8 register -> (the 32-bit word, byte) it came from
        self.known_bits: dict[str, int] = {}  # runtime fragment bases -> the bits they may set
        self.blocked_bases: dict = {}  # #layout.blocked -> the thread's (row, column) base registers
        self.tc_bases: dict = {}  # #layout.transpose_copy -> the thread's address parts and selectors
        self.stores_pending = False  # the branch has committed TMA stores it has not waited for
        self.stages_pending: set[int] = set()  # staging offsets those stores may still read

    # ---- text helpers
    def tmp(self, hint: str = "v") -> str:
        self.n += 1
        sep = "." if hint[-1:].isdigit() else ""  # "col4" 90 and "col" 490 would both be %col490
        return f"%{hint}{sep}{self.n}"

    def emit(self, s: str) -> None:
        self.lines.append("  " + s)

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")
        self.block = name

    def newlabel(self, hint: str) -> str:
        self.n += 1
        return f"{hint}{self.n}"

    def struct(self, elems: list[str]) -> str:
        """The identified struct type of an inline asm's results, defined once at the module's
        top, so that each `extractvalue` of a 64-register accumulator names it instead of
        spelling its 64 element types again (flash attention's IR ~4x smaller):

            %asm.floatx64 = type {float, float, ..., float}
            %v9 = extractvalue %asm.floatx64 %v8, 0
        """
        name = "%asm." + ".".join(f"{t}x{len(list(run))}" for t, run in itertools.groupby(elems))
        self.types[name] = f"{name} = type {{{', '.join(elems)}}}"
        return name

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
                stored = any(u.operation.name == "tile.desc_store" and u.index == 0 for u in a.uses)
                params.append(ParamInfo(pname, "desc", str(elem_of(tt)), shape_of(tt), stored=stored))
                sig.append(f"ptr %p{i}")
                self.vals[a] = ("desc", f"%p{i}", tt, len(params) - 1)
            elif isinstance(t, DescArrayType):  # one descriptor per group, in global memory (tile.desc_index)
                tt = t.block
                stored = any(u.operation.name == "tile.desc_store" and u.index == 0
                             for i_ in a.uses if i_.operation.name == "tile.desc_index"
                             for u in i_.operation.results[0].uses)
                params.append(ParamInfo(pname, "descs", str(elem_of(tt)), shape_of(tt), stored=stored))
                sig.append(f"ptr %p{i}")
                self.vals[a] = ("descs", f"%p{i}", tt, len(params) - 1)
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

        # Shared memory: slot buffers (nvgpu.smem.alloc), TMA-store staging, then mbarriers,
        # within the block's share of the SM (ws-occupancy: ws.ctas_per_sm CTAs share it).
        ctas = ctas_per_sm(f)
        smem_limit = smem_per_cta(ctas)
        block = f.body.blocks[0]
        for o in block.ops:
            if isinstance(o, SmemAllocOp):
                self.plan_buffer(o)
        for o in f.walk():
            if o.name == "tile.desc_store" and STAGING_ATTR in o.attributes:  # in a released ring slot
                self.stage_off[o] = self.slot_staging(o, staging_alloc(o))
        for pool in staging_pools(f):  # a branch's stores take turns in one buffer (store_staging.py)
            self.smem_end = round_up(self.smem_end, 1024)
            for o in pool:
                self.stage_off[o] = self.smem_end
            self.smem_end += max(prod(shape_of(o.operands[-1].type)) * nbytes(elem_of(o.operands[-1].type))
                                 for o in pool)
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
                    off = round_up(self.smem_end, 128)
                    if off + plan["bytes"] + bar_bytes + 8 + 1024 > smem_limit:
                        continue
                    self.store_stage[o] = (off, plan)
                    self.smem_end = off + plan["bytes"]
        bar_off = round_up(self.smem_end, 8)
        for o in block.ops:
            if isinstance(o, MBarrierCreateOp):
                self.bars[o.result] = bar_off
                bar_off += 8 * o.result.type.num.data
        smem_bytes = bar_off + 1024
        if smem_bytes > smem_limit:
            per_sm = f" at {ctas} CTAs per SM" if ctas > 1 else ""
            self.fail(f, f"@{name} needs {smem_bytes} bytes of shared memory (aref slots, staging, mbarriers), "
                         f"more than the {smem_limit} a block can have on sm_90{per_sm}: use a smaller ring depth")

        pinfo: list = []
        self.pinfo = pinfo
        for o in block.ops:
            self.lower_op(o)
        self.emit("ret void")

        attrs = f'"nvvm.maxntid"="{nthreads}" "nvvm.minctasm"="{ctas}"'
        text = [f"define ptx_kernel void @{name}({', '.join(sig)}) #{{ATTR}} {{"] + self.lines + ["}"]
        info = KernelInfo(name, params, nthreads, smem_bytes, pinfo, ctas_per_sm=ctas)
        pers = f.attributes.get("ws.persistent")
        if pers is not None:
            info.persistent_programs = pers.data["programs"].value.data
        tma = f.attributes.get("ws.tma_stores")
        if tma is not None:
            info.tma_stores = [{k: v.value.data for k, v in e.data.items()} for e in tma.data]
        loads = f.attributes.get("ws.tma_loads")
        if loads is not None:
            from wsdialects.transforms.tma_common import load_contract

            info.tma_loads = load_contract(loads)
        from wsdialects.transforms.tma_common import HOST_DESCS_ATTR, host_desc_contract

        info.host_descs = host_desc_contract(f.attributes.get(HOST_DESCS_ATTR))
        return "\n".join(text), info, attrs

    # ----------------------------------------------------------------- shared memory, mbarriers
    def plan_buffer(self, alloc: SmemAllocOp) -> None:
        t = alloc.result.type
        shp = tuple(t.get_shape())
        if len(shp) not in (2, 3):
            self.fail(alloc, f"{t}: only slots of 1-D and 2-D tiles can be lowered")
        row_bytes = shp[-1] * nbytes(t.element_type)
        swz = self.buffer_swizzle(alloc, row_bytes) if len(shp) == 3 else 0  # 1-D: a plain array
        slot_bytes = round_up(prod(shp[1:]) * nbytes(t.element_type), 1024)
        off = round_up(self.smem_end, 1024)
        self.smem_end = off + shp[0] * slot_bytes
        self.bufs[alloc.result] = (off, slot_bytes, shp[1:], t.element_type, row_bytes, swz)

    def slot_staging(self, store: Operation, alloc: SmemAllocOp | None) -> int:
        """The offset of the one-slot buffer `alloc` in which ws-stage-in-slot stages `store`
        (the slot's layout must be the staging layout: TMA stores it as it was loaded)."""
        mark = store.attributes[STAGING_ATTR].value.data
        if alloc is None:
            self.fail(store, f"no nvgpu.smem.alloc carries {STAGING_ATTR} = {mark} to stage this store in")
        off, _, shp, et, row_bytes, swz = self.bufs[alloc.result]
        S = self.stage_tile(store, "0")
        blocks = column_blocks(row_bytes, swz)
        slot = (tuple(shp), et, swz, shp[0] * swz if blocks > 1 else 0)
        if alloc.result.type.get_shape()[0] != 1 or slot != (S.shape, S.elem, S.swizzle, S.block_bytes):
            self.fail(store, f"{alloc.result.type}: not one slot laid out as this store stages its tile "
                             f"({S.shape} {S.elem}, swizzle {S.swizzle})")
        return off

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
        return Smem(self.slot_addr(buf, index), tuple(shp), et, swz, block_bytes=shp[0] * swz if blocks > 1 else 0,
                    align=1024)

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
            # the thread's fragment base (row_rt, col_rt): wsdialects.layout.acc_fragment_base(tip)
            tip = self.op(f"sub i32 {self.tid}, {lo}", "tip")
            lane = self.op(f"and i32 {self.tid}, 31", "lane")
            wg = self.op(f"lshr i32 {tip}, 7", "wg")
            warp = self.op(f"and i32 {self.op(f'lshr i32 {tip}, 5')}, 3", "warp")
            r0 = self.op(f"shl i32 {wg}, 6")
            r1 = self.op(f"shl i32 {warp}, 4")
            r2 = self.op(f"lshr i32 {lane}, 2")
            row_rt = self.op(f"add i32 {self.op(f'add i32 {r0}, {r1}')}, {r2}", "row")
            col_rt = self.op(f"shl i32 {self.op(f'and i32 {lane}, 3')}, 1", "col")
            col4_rt = self.op(f"shl i32 {col_rt}, 1", "col4")
            # the bits each fragment base may set (acc_fragment_base): row 64 wg + 16 warp + lane / 4
            wg_bits = bits_below(br.num_warps // 4) << 6
            self.known_bits = {row_rt: ACC_ROW_BITS | wg_bits, col_rt: ACC_COL_BITS, col4_rt: A8_COL_BITS, "0": 0}
            self.blocked_bases = {}
            for lay in sorted({lay for o in br.walk() for v in o.results if isinstance(lay := layout_of(v.type),
                                                                                     BlockedLayout)}, key=str):
                self.blocked_bases[lay] = self.blocked_base(lay, tip, lane)
            self.tc_bases = {}
            for lay in sorted({lay for o in br.walk() for v in o.results if isinstance(lay := layout_of(v.type),
                                                                                     TransposeCopyLayout)}, key=str):
                self.tc_bases[lay] = self.transpose_copy_bases(lay, tip, lane)
            self.layout = BranchCoords(br.num_warps // 4, row_rt, col_rt, tip, lane, br.num_warps * 32, 1 + idx,
                                       col4_rt)
            self.memo = [{}]
            self.stores_pending = False
            self.stages_pending = set()
            for o in br.body.blocks[0].ops:
                self.lower_op(o)
            if self.stores_pending:  # the branch's last TMA store reads shared memory until here
                self.wait_store_reads()
            self.emit(f"br label %{done}")
            self.label(nxt)
            self.layout = None
        self.emit(f"br label %{done}")
        self.label(done)

    def blocked_base(self, lay: BlockedLayout, tip: str, lane: str) -> tuple[str, str]:
        """The runtime (row, column) of the thread's first block in `lay`
        (wsdialects.layout.blocked_base), with the bits each may set."""
        (tr, tc), (wr, wc) = lay.lane_dims(), lay.warp_dims()
        warp = self.op(f"lshr i32 {tip}, 5")
        lr = self.op(f"udiv i32 {lane}, {tc}")
        lc = self.op(f"urem i32 {lane}, {tc}")
        wr_i = self.op(f"mul i32 {self.op(f'udiv i32 {warp}, {wc}')}, {tr}")
        wc_i = self.op(f"mul i32 {self.op(f'urem i32 {warp}, {wc}')}, {tc}")
        row = self.op(f"shl i32 {self.op(f'add i32 {wr_i}, {lr}')}, 2", "brow")
        col = self.op(f"shl i32 {self.op(f'add i32 {wc_i}, {lc}')}, 2", "bcol")
        self.known_bits[row] = bits_below(tr * wr) << 2
        self.known_bits[col] = bits_below(tc * wc) << 2
        return row, col

    def lower_lead_warp(self, o: Operation) -> None:
        """`nvgpu.wg.lead_warp`: the branch's first warp runs the body, the others jump past it."""
        warp = self.op(f"lshr i32 {self.layout.tid_in_part}, 5")
        inside, past = self.newlabel("lead_warp"), self.newlabel("lead_warp_done")
        self.emit(f"br i1 {self.op(f'icmp eq i32 {warp}, 0')}, label %{inside}, label %{past}")
        self.label(inside)
        self.memo.append({})
        for bo in o.regions[0].blocks[0].ops:
            self.lower_op(bo)
        self.memo.pop()
        self.emit(f"br label %{past}")
        self.label(past)

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
            return self.lower_smem_load(o)
        if n.startswith("nvgpu.") or n.startswith("nvvm."):
            return self.lower_nvgpu(o)
        if n == "tile.desc_index":  # the group's descriptor: 128 bytes each, in the array the launch built
            _, base, tt, pidx = self.vals[o.operands[0]]
            off = self.op(f"mul i64 {self.op(f'sext i32 {self.scalar(o.operands[1])} to i64')}, 128")
            self.vals[o.results[0]] = ("desc", self.op(f"getelementptr i8, ptr {base}, i64 {off}"), tt, pidx)
            return
        if n == "tile.trans":
            src = self.vals.get(o.operands[0])
            if isinstance(src, Smem) and list(o.order.get_values()) == [1, 0]:
                self.vals[o.results[0]] = Smem(src.addr, shape_of(rt), src.elem, src.swizzle, not src.trans,
                                               src.block_bytes, src.align)
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
        if n == "tile.atomic_add":
            return self.lower_atomic_add(o)
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
                self.vals[o.results[0]] = fconst(v.value.data, rt)
            else:
                self.fail(o, f"unsupported constant {v}")
            return
        if len(o.results) == 1 and not o.regions:
            ins = [self.scalar(x) for x in o.operands]
            self.vals[o.results[0]] = self.elementwise(o, ins, [x.type for x in o.operands], rt)
            return
        self.fail(o, f"'{n}' cannot be lowered to Hopper code (not supported by the thread-level lowering)")

    # ---- TMA descriptors
    def use_desc(self, op: Operation, pidx: int, swz: int) -> None:
        """The swizzle every TMA access through descriptor `pidx` uses (0: none); one per
        descriptor, since the runtime encodes it once."""
        p = self.params[pidx]
        seen = getattr(p, "_swz", None)
        if seen is not None and seen != swz:
            self.fail(op, f"descriptor {p.name} is used with two shared-memory layouts "
                          f"({seen}-byte and {swz}-byte swizzle)")
        p._swz = swz  # type: ignore[attr-defined]
        p.swizzle = swz

    def stage_tile(self, store: Operation, addr: str) -> Smem:
        """The staging buffer of a TMA store (`tile.desc_store`, or a gather feeding one) at
        `addr`, laid out as a slot of the tile would be: rows of 32, 64 or 128 bytes swizzled
        as such, wider rows as 128-B-swizzled column blocks (fragment writes without bank
        conflicts, one TMA box per block); other rows plain row-major. `addr` is 1024-byte aligned
        (every staging offset is: `lower`)."""
        v = store.operands[-1]
        shp, et = shape_of(v.type), elem_of(v.type)
        row = shp[-1] * nbytes(et)
        swz = slot_swizzle(row) if len(shp) == 2 else None
        blocks = column_blocks(row, swz) if swz else 1
        return Smem(addr, tuple(shp), et, swz or 0, block_bytes=shp[0] * swz if blocks > 1 else 0, align=1024)

    def use_box(self, op: Operation, pidx: int, box: tuple[int, ...]) -> None:
        """The box every TMA access through descriptor `pidx` moves (one per descriptor:
        the runtime encodes it once)."""
        p = self.params[pidx]
        seen = getattr(p, "_box", None)
        if seen is not None and seen != box:
            self.fail(op, f"descriptor {p.name} is used with two TMA boxes {seen} and {box}")
        p._box = box  # type: ignore[attr-defined]
        p.block = box
