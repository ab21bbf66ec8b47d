"""Per-thread evaluation of laid-out tiles: the registers a thread holds of a tile in the
wgmma accumulator fragment or a row / column slice of it (`slots`), elementwise arith and
math per register (float add / sub / mul contractible into FMA; exp, exp2, log, log2, sin,
cos on the SFU with subnormals flushed), f32 -> f16 / bf16 / fp8 truncation of fragments in
column pairs (cvt.rn.f16x2.f32, cvt.rn.satfinite.e4m3x2.f32), index tiles, broadcasts and pointer loads per element (and scalar loads),
and row reductions (a tree in the thread, then shfl.sync.bfly 1 and 2 across the quad)."""

from __future__ import annotations


from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from wsdialects.layout import (
    BlockedLayout,
    OperandALayout,
    PairLayout,
    PermuteLayout,
    SliceLayout,
    WgmmaLayout,
    acc_fragment_offsets,
    blocked_offsets,
    col_slice_offsets,
    layout_of,
    operand_a8_offsets,
    row_slice_offsets,
    with_layout,
)
from wsdialects.tile import PtrType
from wsdialects.transforms.exp2_split import ATTR as EXP2_FMA
from wsdialects.transforms.exp2_split import BLOCK as EXP2_BLOCK
from wsdialects.transforms.exp2_split import COEFFS as EXP2_COEFFS
from wsdialects.transforms.exp2_split import HI as EXP2_HI
from wsdialects.transforms.exp2_split import LO as EXP2_LO
from wsdialects.transforms.exp2_split import ROUNDER as EXP2_ROUNDER
from wsdialects.transforms.exp2_split import ROUNDER_PTX as EXP2_ROUNDER_PTX
from wsdialects.transforms.exp2_split import read_mark as read_exp2_mark
from wsdialects.lower.llvm.types import (Frag, Smem, bits_of, dense_distinct, elem_of, fconst, fp8_name, is_float, is_fp8,
                                         llty, shape_of, suffix, zero)


class Elementwise:
    """Tiles evaluated per register of the thread that holds them. A mixin of `Kernel` (kernel.py), over its emitter state."""

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
        if n == "tile.addptr":  # a scalar pointer plus an offset (a block pointer's base)
            ot = llty(elem_of(tys[1]))
            off = ins[1] if ot == "i64" else self.op(f"sext {ot} {ins[1]} to i64")
            return self.op(f"getelementptr {llty(elem_of(rt).parameters[0])}, ptr addrspace(1) {ins[0]}, i64 {off}")
        if n == "tile.load":  # a scalar load (a group's row offset, a size read on the device)
            mask = ins[1] if len(ins) > 1 else None
            return self.masked_load(ins[0], ret, mask, ins[2] if len(ins) > 2 else zero(ret))
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
            fn = f"llvm.{mm[n]}.{suffix(T)}"
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
                x = self.op(f"fmul float {x}, {fconst(pre, Float32Type())}")
            y = self.asm(f"{fn}.approx.ftz.f32 $0, $1;", "=f,f", [("float", x)], "float")
            if post != 1.0:
                y = self.op(f"fmul float {y}, {fconst(post, Float32Type())}")
            return y if T == "float" else self.op(f"fptrunc float {y} to {T}")
        um = {"math.sqrt": "sqrt", "math.absf": "fabs", "arith.absf": "fabs", "math.floor": "floor",
              "math.ceil": "ceil"}
        if n in um:
            fn = f"llvm.{um[n]}.{suffix(T)}"
            self.decls.add(f"declare {T} @{fn}({T})")
            return self.op(f"call {T} @{fn}({T} {ins[0]})")
        if n == "math.rsqrt":
            fn = f"llvm.sqrt.{suffix(T)}"
            self.decls.add(f"declare {T} @{fn}({T})")
            s = self.op(f"call {T} @{fn}({T} {ins[0]})")
            return self.op(f"fdiv {T} {fconst(1.0, et)}, {s}")
        if n == "math.fma":
            fn = f"llvm.fma.{suffix(T)}"
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
        if isinstance(layout_of(t), SliceLayout) or (isinstance(layout_of(t), WgmmaLayout) and shape_of(t)[0] == 1):
            return Frag(regs, {idx: s for s, idx in self.slots(t, op)})
        if isinstance(layout_of(t), PermuteLayout):  # also found by element (a transposing read)
            return Frag(regs, {idx: s for s, idx in self.slots(t, op, permuted=True)})
        return Frag(regs)

    def in_fragment(self, t: Attribute) -> bool:
        """Is a tile of type `t` in this branch's wgmma fragment or a 1-D slice of it (so that
        `slots` lists its elements)?"""
        L, lay = self.layout, layout_of(t)
        if L is None or not isinstance(t, TensorType):
            return False
        if isinstance(lay, SliceLayout):
            return (isinstance(lay.parent, WgmmaLayout) and lay.parent.groups == L.wg_count
                    and len(shape_of(t)) == 1)
        return isinstance(lay, WgmmaLayout) and lay.groups == L.wg_count

    def lower_smem_load(self, o: Operation) -> None:
        """`nvgpu.smem.load` into registers: read where the IR reads, since the slot may be
        released (and refilled by another warp group) by the next op. A tile in another layout
        is read element by element where it is used (`_ev_op`); such a use must come before
        the slot's release in the IR (the copies of a staged TMA store do). A tile only
        stored into shared memory by the ops right after (ws-stage-operands' transposing copy
        of an fp8 V) is also read where it is stored, two elements per store, so that the
        whole tile is never live in registers."""
        t = o.results[0].type
        if isinstance(layout_of(t), BlockedLayout):
            # a tile only stored right after is copied block by block there (`store_blocked`)
            return None if _stored_next(o) else self.load_blocked(o)
        if self.is_transpose_copy(t):  # likewise unit by unit (`store_transpose_copy`)
            return None if _stored_next(o) else self.load_transpose_copy(o)
        if not self.in_fragment(t) or _stored_next(o):
            return
        regs = [self.ev(o.results[0], idx, s) for s, idx in self.slots(t, o)]
        self.vals[o.results[0]] = self.make_frag(t, regs, o)

    def slots(self, t: TensorType, op: Operation, permuted: bool = False):
        """The (register, index) pairs of a tile of type `t`, which must be in this branch's
        wgmma accumulator fragment (its #layout.wgmma, given by ws-lower-layouts) or a row
        (dim = 1) or column (dim = 0) slice of it; which registers hold which elements is
        wsdialects/layout.py's (acc_fragment_offsets, row_slice_offsets, col_slice_offsets).
        `permuted`: also a `#layout.permute` of the fragment (a transposed tile held in the
        registers it was computed in, carried by a loop: slot s is the parent's slot s, its
        index permuted); callers that pair neighbouring slots as columns leave it off."""
        L = self.layout
        lay = layout_of(t)
        if permuted and isinstance(lay, PermuteLayout) and len(shape_of(t)) == 2:
            perm = lay.perm()
            src = [0, 0]
            for i, a in enumerate(perm):
                src[a] = shape_of(t)[i]
            parent = with_layout(TensorType(t.element_type, src), lay.parent)
            return [(s, tuple(idx[a] for a in perm)) for s, idx in self.slots(parent, op, permuted)]
        if isinstance(lay, PairLayout):  # register 2s + k: element [i..., k] of register s's [i...]
            half = with_layout(TensorType(t.element_type, shape_of(t)[:-1]), lay.parent)
            return [(2 * s + k, (*idx, ("0", k))) for s, idx in self.slots(half, op) for k in (0, 1)]
        if isinstance(lay, BlockedLayout) and L is not None and lay in self.blocked_bases:
            row_rt, col_rt = self.blocked_bases[lay]
            M, N = shape_of(t)
            return [(i, ((row_rt, rc), (col_rt, cc)))
                    for i, (rc, cc) in enumerate(blocked_offsets(M, N, lay.lane_dims(), lay.warp_dims()))]
        if isinstance(lay, OperandALayout) and L is not None and lay.parent.groups == L.wg_count:
            M, K = shape_of(t)
            if M % (64 * L.wg_count) or K % 32:
                self.fail(op, f"a {M}x{K} tile does not fit wgmma's 8-bit A fragment of {L.wg_count} warp group(s)")
            il = lay.interleave.data  # interleaved: from the accumulator's column base 2 (l % 4)
            return [(i, ((L.row_rt, rc), (L.col_rt if il else L.col4_rt, cc)))
                    for i, (rc, cc) in enumerate(operand_a8_offsets(M, K, L.wg_count, il))]
        if (L is not None and isinstance(lay, SliceLayout) and isinstance(lay.parent, WgmmaLayout)
                and lay.parent.groups == L.wg_count and len(shape_of(t)) == 1):
            (n,) = shape_of(t)
            if lay.dim.data == 1:
                if n % (64 * L.wg_count):
                    self.fail(op, f"a {n}-row slice does not fit the rows of {L.wg_count} warp group(s)")
                return list(enumerate(((L.row_rt, c),) for c in row_slice_offsets(n, L.wg_count)))
            if n % 8 or n > 256:
                self.fail(op, f"a {n}-column slice does not fit the accumulator's columns")
            return list(enumerate(((L.col_rt, c),) for c in col_slice_offsets(n)))
        if L is None or not isinstance(lay, WgmmaLayout) or lay.groups != L.wg_count:
            self.fail(op, f"{t} is not in the wgmma accumulator fragment of this branch"
                          + ("" if lay is not None else " (it has no layout: run ws-lower-layouts)"))
        M, N = shape_of(t)
        if M == 1 and N % 8 == 0 and N <= 256:  # one row (a 1xN tile a broadcast reads): each thread's columns
            return [(i, (("0", 0), (L.col_rt, c))) for i, c in enumerate(col_slice_offsets(N))]
        if M % (64 * L.wg_count) or N % 8 or N > 256:
            self.fail(op, f"a {M}x{N} tile does not fit the wgmma accumulator layout of {L.wg_count} warp group(s): "
                          f"rows must be a multiple of {64 * L.wg_count}, columns a multiple of 8 and at most 256")
        return [(i, ((L.row_rt, rc), (L.col_rt, cc)))
                for i, (rc, cc) in enumerate(acc_fragment_offsets(M, N, L.wg_count))]

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
                vals = dense_distinct(val)
                if len(vals) != 1:
                    self.fail(o, "only splat dense constants can be lowered")
                x = vals[0]
                et = elem_of(t)
                if is_float(et):
                    return fconst(float(x), et)
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
            other = self.ev(o.other, idx, slot) if o.other is not None else zero(et)
            return self.masked_load(p, et, mask, other)
        if n == "tile.reduce":
            return self.ev_reduce(o, v, idx)
        if n == "nvgpu.smem.load":
            return self.ev(o.operands[0], idx, None)
        if n == "nvgpu.convert_layout":
            return self.ev_convert_layout(o, v, idx)
        if n in ("tile.reshape", "tile.join", "tile.split"):
            return self.ev_regroup(o, v, idx, slot)
        if n == "tile.trans":
            order = list(o.order.get_values())
            src_idx = [None] * len(order)
            for i, a in enumerate(order):
                src_idx[a] = idx[i]
            # a fragment and its #layout.permute number their registers alike: the slot carries over
            return self.ev(o.operands[0], tuple(src_idx), slot if _same_registers(o) else None)
        if n == "arith.truncf" and slot is not None and self.paired_cvt(o) is not None:
            return self.ev_truncf_pair(o, v, idx, slot)
        if n == "math.exp2" and EXP2_FMA in o.attributes:  # ws-exp2-split's share on the FMA pipe
            return self.ev_exp2_split(o, v, idx, slot)
        if len(o.results) == 1 and not o.regions:
            ins = [self.ev(x, idx, slot) for x in o.operands]
            return self.elementwise(o, ins, [x.type for x in o.operands], t)
        self.fail(o, f"'{n}' cannot be lowered per element")

    def ev_regroup(self, o: Operation, v: SSAValue, idx, slot):
        """Element `idx` of a `tile.reshape` that inserts or removes dims of size 1 (the same
        element of the operand, re-indexed), a `tile.join` (register 2s + k of the pair is
        register s of operand k) or a `tile.split` (result k is register 2s + k of the pair)."""
        n = o.name
        if n == "tile.join":
            rt, k = idx[-1]
            if rt != "0":
                self.fail(o, "tile.join: the minor dim of 2 must lie within one thread (#layout.pair)")
            return self.ev(o.operands[k], idx[:-1], None if slot is None else slot // 2)
        if n == "tile.split":
            k = list(o.results).index(v)
            return self.ev(o.operands[0], (*idx, ("0", k)), None if slot is None else 2 * slot + k)
        from wsdialects.lower.lower_layouts import unit_dims

        src, res = shape_of(o.operands[0].type), shape_of(v.type)
        dims = unit_dims(src, res)
        if dims is None:
            self.fail(o, f"tile.reshape of {'x'.join(map(str, src))} to {'x'.join(map(str, res))} moves elements "
                         "between threads, which is not lowered; only inserting or removing dims of size 1 is")
        removed, inserted = dims
        kept = iter([d for i, d in enumerate(idx) if i not in inserted])
        sidx = tuple(("0", 0) if i in removed else next(kept) for i in range(len(src)))
        return self.ev(o.operands[0], sidx, None)

    def ev_exp2_split(self, o: Operation, v: SSAValue, idx, slot):
        """Element `idx` of a `math.exp2` marked by ws-exp2-split: in a marked block of 8
        columns, 2^x = 2^floor(x) * p(x - floor(x)) on the FMA pipe (wsdialects/transforms/
        exp2_split.py: the clamp, the floor from an add rounding down, Horner's rule in FMAs,
        floor(x) added into the exponent bits); elsewhere the SFU's ex2 as usual. The block
        is known when compiling: the column's thread part (4 (lane % 4) / 2) is below 8."""
        blocks, degree = read_exp2_mark(o)
        rt, c = idx[-1]
        if rt not in ("0", self.layout.col_rt if self.layout is not None else "0"):
            self.fail(o, f"'{EXP2_FMA}' on a tile whose columns are not those of the wgmma accumulator fragment")
        x = self.ev(o.operands[0], idx, slot)
        if c // EXP2_BLOCK not in blocks:
            return self.elementwise(o, [x], [o.operands[0].type], v.type)
        f32 = Float32Type()
        for fn in ("maxnum", "minnum", "fma"):
            args = ", ".join(["float"] * (3 if fn == "fma" else 2))
            self.decls.add(f"declare float @llvm.{fn}.f32({args})")
        xc = self.op(f"call float @llvm.maxnum.f32(float {x}, float {fconst(EXP2_LO, f32)})")
        xc = self.op(f"call float @llvm.minnum.f32(float {xc}, float {fconst(EXP2_HI, f32)})")
        big = self.asm(f"add.rm.f32 $0, $1, {EXP2_ROUNDER_PTX};", "=f,f", [("float", xc)], "float")
        n = self.op(f"fsub float {big}, {fconst(EXP2_ROUNDER, f32)}")  # floor(x), exactly
        frac = self.op(f"fsub float {xc}, {n}")
        cs = EXP2_COEFFS[degree]
        p = fconst(cs[-1], f32)
        for k in (*cs[-2::-1], 1.0):
            p = self.op(f"call float @llvm.fma.f32(float {p}, float {frac}, float {fconst(k, f32)})")
        e = self.op(f"shl i32 {self.op(f'bitcast float {big} to i32')}, 23")
        r = self.op(f"add i32 {self.op(f'bitcast float {p} to i32')}, {e}")
        return self.op(f"bitcast i32 {r} to float")

    @staticmethod
    def paired_cvt(o: Operation) -> str | None:
        """The packed conversion of an f32 -> f16 / bf16 truncation of an accumulator tile
        (cvt.rn.f16x2.f32 rounds two adjacent columns at once), or None."""
        src, dst = elem_of(o.operands[0].type), elem_of(o.results[0].type)
        if not (isinstance(src, Float32Type) and isinstance(layout_of(o.results[0].type), WgmmaLayout)):
            return None
        if is_fp8(dst):
            return f"satfinite.{fp8_name(dst)}x2"
        return {Float16Type: "f16x2", BFloat16Type: "bf16x2"}.get(type(dst))

    def ev_truncf_pair(self, o: Operation, v: SSAValue, idx, slot: int) -> str:
        """Element `slot` of a truncated accumulator tile, converted together with its
        neighbour column (slot ^ 1: same row, columns 2c and 2c + 1) by one cvt.rn.f16x2.f32;
        both halves are memoized."""
        slots = self.slots(v.type, o)
        lo, hi = slot & ~1, slot | 1
        xs = [self.ev(o.operands[0], slots[s][1], s) for s in (lo, hi)]
        if is_fp8(elem_of(v.type)):  # two bytes in a 16-bit register (cvt.rn.satfinite.e4m3x2.f32)
            packed = self.asm(f"cvt.rn.{self.paired_cvt(o)}.f32 $0, $1, $2;", "=h,f,f",
                              [("float", xs[1]), ("float", xs[0])], "i16")
            halves = [self.op(f"trunc i16 {w} to i8") for w in (packed, self.op(f"lshr i16 {packed}, 8"))]
        else:
            packed = self.asm(f"cvt.rn.{self.paired_cvt(o)}.f32 $0, $1, $2;", "=r,f,f",
                              [("float", xs[1]), ("float", xs[0])], "i32")
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
            name = f"llvm.{fn}.{suffix(T)}"
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

    def frag_of(self, v: SSAValue, op: Operation) -> list[str]:
        r = self.vals.get(v)
        if isinstance(r, Frag):
            return r.regs
        return [self.ev(v, idx, s) for s, idx in self.slots(v.type, op, permuted=True)]


def _stored_next(load: Operation) -> bool:
    """Every use of `load`'s tile is an `nvgpu.smem.store` that follows it in its block with
    only constants in between: reading it at the store reads the same bytes."""
    users = {u.operation for u in load.results[0].uses}
    if not users or any(u.name != "nvgpu.smem.store" or u.parent_block() is not load.parent_block() for u in users):
        return False
    x = load.next_op
    while users:
        if x is None or not (x in users or x.name == "arith.constant"):
            return False
        users.discard(x)
        x = x.next_op
    return True


def _same_registers(trans: Operation) -> bool:
    """`tile.trans` between a register fragment and its `#layout.permute` (either way): the
    thread holds the same elements in the same registers, only their indices differ."""
    a, b = layout_of(trans.operands[0].type), layout_of(trans.results[0].type)
    return ((isinstance(b, PermuteLayout) and b.parent == a and not isinstance(a, PermuteLayout))
            or (isinstance(a, PermuteLayout) and a.parent == b and not isinstance(b, PermuteLayout)))
