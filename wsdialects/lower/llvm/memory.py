"""Global-memory ops of the LLVM emitter: masked pointer loads and stores (predicated PTX),
atomic adds (`red` / `atom`, one owner thread per element, between two gpu-scope fences; f32
pairs of the accumulator fragment as `red.global.add.v2.f32` where their alignment is proven),
1-D row-slice stores from lane 4q, pointer-tile stores contiguous along a row staged per
warp through padded shared memory and written as 16-byte vectors (element stores where a
mask or the alignment fails; `WSDIALECTS_SCALAR_STORES=1` stores from the fragment), and
`tile.desc_store`: the fragment staged row-major in shared memory, fenced for the async
proxy, a named barrier over the partition, one thread's TMA store (a reducing store's
`cp.reduce.async.bulk.tensor`)."""

from __future__ import annotations


from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from wsdialects.layout import PairLayout, SliceLayout, WgmmaLayout, layout_of
from wsdialects.lower.alignment import divisor
from wsdialects.lower.lower_layouts import is_free
from wsdialects.lower.llvm.shared_address import at
from wsdialects.lower.llvm.shared_tiles import Staged, in_loop
from wsdialects.lower.llvm.types import bits_of, elem_of, is_float, llty, nbytes, shape_of, splat_int


class Memory:
    """Loads and stores of global memory. A mixin of `Kernel` (kernel.py), over its emitter state."""

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

    # ---- atomics
    def lower_atomic_add(self, o: Operation) -> None:
        """`tile.atomic_add`, lowered where the op stands (not lazily at a use, as a tile's other
        ops are: its adds happen once, read or not). Each element is added once, by the thread
        that owns it: a thread its accumulator-fragment elements, lane 4q the rows of a row slice
        (the quad's other lanes hold copies; a read result is shuffled back to them), thread 0
        of the partition a scalar (a read scalar result, which every thread would need, is
        refused). Triton's ordering, acq_rel at gpu scope, is one `fence.acq_rel.gpu` before and
        one after the thread's adds, which are relaxed: `red.relaxed.gpu.global.add` where the
        result is not read (PTX's `red` takes no acq_rel), else `atom.relaxed.gpu.global.add`
        (0 where the mask is off). f32, f16 (`.noftz.f16`) and i32 (`.s32`), one element each,
        except f32 fragment adds whose result is not read and whose pairs of columns are proven
        8-byte aligned (`vector_pairs`): two at a time with `red...add.v2.f32`."""
        ptr, v = o.operands[0], o.operands[1]
        et = elem_of(v.type)
        used = bool(o.results[0].uses)
        L = self.layout
        self.asm("fence.acq_rel.gpu;", "", [])
        if not isinstance(v.type, TensorType):
            if used:
                self.fail(o, "the result of a scalar tile.atomic_add is read: one thread adds, and handing its "
                             "result to the partition's other threads is not lowered (the tile form is)")
            owner = self.op(f"icmp eq i32 {self.leader()}, 0")
            m = owner if o.mask is None else self.op(f"and i1 {owner}, {self.scalar(o.mask)}")
            self.atomic_add(self.scalar(ptr), self.scalar(v), et, m, used)
            self.asm("fence.acq_rel.gpu;", "", [])
            return
        lay = layout_of(v.type)
        owner = None
        if isinstance(lay, PairLayout) and not isinstance(lay.parent, WgmmaLayout):
            self.fail(o, f"tile.atomic_add of a tile in {lay}: only pairs of the accumulator fragment are lowered "
                         "(a slice's elements have several owner threads)")
        if isinstance(lay, SliceLayout) and L is not None:
            if lay.dim.data != 1:
                self.fail(o, f"tile.atomic_add of a tile in {lay}: only the accumulator fragment and its row "
                             "slices are lowered (every fragment row holds a column slice)")
            owner = self.op(f"icmp eq i32 {self.op(f'and i32 {L.lane}, 3')}, 0")  # lane 4q adds the quad's rows
        slots = self.slots(v.type, o)
        if not used and owner is None and self.vector_pairs(o, slots):
            for (s0, i0), (s1, i1) in zip(slots[::2], slots[1::2]):
                ms = [self.ev(o.mask, i, s) for s, i in ((s0, i0), (s1, i1))] if o.mask is not None else None
                self.red_pair(self.ev(ptr, i0, s0), self.ev(v, i0, s0), self.ev(v, i1, s1), ms)
            self.asm("fence.acq_rel.gpu;", "", [])
            return
        regs = []
        for s, idx in slots:
            m = self.ev(o.mask, idx, s) if o.mask is not None else None
            if owner is not None:
                m = owner if m is None else self.op(f"and i1 {owner}, {m}")
            r = self.atomic_add(self.ev(ptr, idx, s), self.ev(v, idx, s), et, m, used)
            if used and owner is not None:
                r = self.from_lane(r, et, self.op(f"and i32 {L.lane}, 28"))
            regs.append(r)
        self.asm("fence.acq_rel.gpu;", "", [])
        if used:
            self.vals[o.results[0]] = self.make_frag(v.type, regs, o)

    def atomic_add(self, p: str, val: str, et: Attribute, mask: str | None, used: bool) -> str | None:
        """One relaxed gpu-scope atomic add of `val` at `p` where `mask` (i1) holds: `red` when
        the old value is not `used`, else `atom` giving it (0 where the mask is off)."""
        bits = bits_of(et)
        T = llty(et)
        it = f"i{bits}"
        ty = {"half": "noftz.f16", "float": "f32"}.get(T, "s32")
        c = "h" if bits == 16 else "r"
        iv = self.op(f"bitcast {T} {val} to {it}") if is_float(et) else val
        args = [("ptr addrspace(1)", p), (it, iv)]
        pred, guard = "", ""
        if mask is not None:
            args.append(("i32", self.op(f"zext i1 {mask} to i32")))
            pred, guard = f".reg .pred p; setp.ne.b32 p, ${len(args) - 1 + used}, 0; ", "@p "
        if not used:
            self.asm(f"{{ {pred}{guard}red.relaxed.gpu.global.add.{ty} [$0], $1; }}",
                     ",".join(["l", c] + (["r"] if mask is not None else [])), args)
            return None
        r = self.asm(f"{{ {pred}mov.b{bits} $0, 0; {guard}atom.relaxed.gpu.global.add.{ty} $0, [$1], $2; }}",
                     ",".join([f"={c}", "l", c] + (["r"] if mask is not None else [])), args, it)
        return self.op(f"bitcast {it} {r} to {T}") if is_float(et) else r

    def vector_pairs(self, o: Operation, slots) -> bool:
        """Whether the f32 adds of a `tile.atomic_add` in the accumulator fragment go two at a
        time (`red.global.add.v2.f32`, PTX 8.1): a thread holds columns 2j and 2j + 1 of a row
        as registers 2k and 2k + 1, and the pair's address is 8-byte aligned where the pointers
        step one element per column (`_col_coef`) and those of column 0 are 8-byte aligned
        (wsdialects/lower/alignment.py: `tt.divisibility` of the base and the row stride, the
        column offset a multiple of 2). Without that proof the adds stay one per element."""
        ptr, v = o.operands[0], o.operands[1]
        if elem_of(v.type) != Float32Type() or not isinstance(layout_of(v.type), WgmmaLayout) or len(slots) % 2:
            return False
        for (_, (r0, c0)), (_, (r1, c1)) in zip(slots[::2], slots[1::2]):
            if r0 != r1 or c0[0] != c1[0] or c0[1] % 2 or c1[1] != c0[1] + 1:
                return False
        return self._col_coef(ptr, 1) == 1 and divisor(ptr, 1) >= 8

    def red_pair(self, p: str, x0: str, x1: str, masks: list[str] | None) -> None:
        """`red.relaxed.gpu.global.add.v2.f32` of (x0, x1) at p (8-byte aligned) where both
        masks hold; where one holds, that element's scalar `red`."""
        args = [("ptr addrspace(1)", p)] + [("i32", self.op(f"bitcast float {x} to i32")) for x in (x0, x1)]
        if masks is None:
            self.asm("red.relaxed.gpu.global.add.v2.f32 [$0], {$1, $2};", "l,r,r", args)
            return
        args += [("i32", self.op(f"zext i1 {m} to i32")) for m in masks]
        self.asm("{ .reg .pred p0, p1, pb; setp.ne.b32 p0, $3, 0; setp.ne.b32 p1, $4, 0; and.pred pb, p0, p1; "
                 "xor.pred p0, p0, pb; xor.pred p1, p1, pb; @pb red.relaxed.gpu.global.add.v2.f32 [$0], {$1, $2}; "
                 "@p0 red.relaxed.gpu.global.add.f32 [$0], $1; @p1 red.relaxed.gpu.global.add.f32 [$0+4], $2; }",
                 "l,r,r,r,r", args)

    def from_lane(self, x: str, et: Attribute, lane: str) -> str:
        """`x` as lane `lane` of the warp holds it (shfl.sync.idx)."""
        bits, T = bits_of(et), llty(et)
        y = self.op(f"bitcast {T} {x} to i{bits}") if is_float(et) else x
        y = self.op(f"zext i{bits} {y} to i32") if bits < 32 else y
        y = self.asm("shfl.sync.idx.b32 $0, $1, $2, 31, -1;", "=r,r,r", [("i32", y), ("i32", lane)], "i32")
        y = self.op(f"trunc i32 {y} to i{bits}") if bits < 32 else y
        return self.op(f"bitcast i{bits} {y} to {T}") if is_float(et) else y

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
        if n in ("tile.reshape", "tile.join", "tile.split"):
            return None
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
            cst = splat_int(o.operands[1])
            if n == "arith.shli":
                return None if a is None or cst is None or b != 0 else a << cst
            if cst is not None and b == 0 and a is not None:
                return a * cst
            cst = splat_int(o.operands[0])
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
                    self.asm(f"st.shared.b{2 * bits} [$0{at(lo)}], $1;", f"r,{pc}", [("i32", wbase_w), (pt, pk)])
                self.asm("bar.warp.sync -1;", "", [])
                for it in range(16 // rpi):
                    lo = it * rpi * stride
                    st4 = self.struct(["i32"] * 4)
                    res = self.asm(f"ld.shared.v4.b32 {{$0, $1, $2, $3}}, [$4{at(lo)}];", "=r,=r,=r,=r,r",
                                   [("i32", wbase_r)], st4)
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
        if (shp[-1] * nbytes(et)) % 16:
            self.fail(o, "tile.desc_store: a row of the tile must be a multiple of 16 bytes")
        L = self.layout
        staged = self.vals.get(v)
        if isinstance(staged, Staged):  # warp_group.gather wrote it, the team met: only the store is left
            return self.tma_store(o, self.stage_tile(o, staged.addr))
        if in_loop(o) or self.stage_off[o] in self.stages_pending:
            # the last store (one thread) into this staging buffer -- this one in the loop's previous
            # iteration, or another of the branch's stores sharing it -- has read it: it waits, the
            # rest meet it
            self.wait_store_reads()
            self.named_barrier(L.barrier_id, L.threads)
            self.stages_pending.clear()
        self.stages_pending.add(self.stage_off[o])
        S = self.stage_tile(o, self.op(f"add i32 {self.smem}, {self.stage_off[o]}", "stage"))
        self.store_fragment(v, S, o)  # two adjacent columns per store, at the staging layout's address
        self.asm("fence.proxy.async.shared::cta;", "", [])
        self.named_barrier(L.barrier_id, L.threads)
        self.tma_store(o, S)
