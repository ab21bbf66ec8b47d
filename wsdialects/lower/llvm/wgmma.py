"""nvgpu.wgmma ops -> wgmma PTX: shared-memory descriptors (K-major: stride offset 8 rows
of the swizzle, k steps inside a column block then across blocks; M-major A and N-major B
(a KxM / KxN tile, f16 / bf16): the transpose bit, leading offset = the column-block stride,
stride offset 8 K rows, a warp group's 64 rows of M its column block), register A (the accumulator fragment of an
earlier dot packed into f16x2 / bf16x2 before the fence, FlashAttention-3's P·V; an fp8 P
converted into the 8-bit A fragment by quad shuffles and byte permutes), one
m64nNk16 / k32 instruction per 64-row block and K step, commit groups and
`wgmma.wait_group N` with the accumulators passed through so nothing reads them early."""

from __future__ import annotations


from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    TensorType,
)
from xdsl.ir import Operation

from wsdialects.arith import splat_constant
from wsdialects.layout import OperandALayout, SliceLayout, WgmmaLayout, layout_of

from wsdialects.nvgpu import (
    WgmmaFenceOp,
    WgmmaMmaAsyncOp,
)
from wsdialects.lower.llvm.types import Frag, SWIZZLE_CODE, Smem, bits_of, elem_of, fp8_name, is_fp8, llty, nbytes, shape_of


class Wgmma:
    """Tensor-core MMA issue and waits. A mixin of `Kernel` (kernel.py), over its emitter state."""

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

    def _stepped(self, desc: str, step: int) -> str:
        """The descriptor `desc` + `step` (a K step's), computed where it is used: an asm add, which
        LLVM does not hoist out of a loop (a loop-invariant tile's K-step descriptors, one per K
        step and operand, two registers each, would otherwise all be held across the loop)."""
        if not step:
            return desc
        return self.asm(f"add.s64 $0, $1, {step};", "=l,l", [("i64", desc)], "i64")

    @staticmethod
    def _k_offset(S: Smem, kbytes: int) -> int:
        """Bytes from a K-major tile's start to its K offset `kbytes` (in the column block
        holding it)."""
        if S.block_bytes:
            return (kbytes // S.swizzle) * S.block_bytes + kbytes % S.swizzle
        return kbytes

    def _mn_offset(self, S: Smem, first: str) -> str:
        """i32 bytes from an MN-major tile's start (a KxM / KxN tile stored row by row) to its
        MN index `first` (a multiple of 64): the column block holding it; a swizzle atom
        (32, 64 or 128 bytes) divides 64 elements' bytes, so it starts a block."""
        eb = nbytes(S.elem)
        if not S.block_bytes:
            return self.op(f"mul i32 {first}, {eb}")
        return self.op(f"mul i32 {self.op(f'udiv i32 {first}, {S.swizzle // eb}')}, {S.block_bytes}")

    def wgmma_fence(self, o: Operation) -> None:
        """`wgmma.fence` orders earlier register writes before the wgmmas that follow: the
        accumulators of those wgmmas (evaluated lazily elsewhere) and their register A
        operands, converted and packed, are computed first, and pass through the fence as
        tied asm operands, so no register copy (a loop-carried accumulator's first value,
        say) can land between the fence and the wgmmas (ptxas would inject a
        warpgroup.arrive there: C7519)."""
        nxt = o.next_op
        issued = set()
        fenced: list[tuple[WgmmaMmaAsyncOp, str, list[str]]] = []  # (mma, "acc" | "a", registers)
        group = []
        while isinstance(nxt, WgmmaMmaAsyncOp):
            group.append(nxt)
            nxt = nxt.next_op
        if o.parent_block() is not None and not any(isinstance(x, WgmmaFenceOp) for x in _ops_before(o)):
            # The block's first fence also takes the accumulators of its later wgmma groups that
            # come from outside the block (loop-carried, say): their first values (a zero init)
            # are then written before any wgmma of the block is in flight (else: C7517).
            later = [x for x in _ops_after(o) if isinstance(x, WgmmaMmaAsyncOp) and x not in group
                     and not _defined_in(x.acc, o.parent_block())
                     and not _is_zero_tile(x.acc)]
            seen = set()
            for x in later:
                if x.acc not in seen:
                    seen.add(x.acc)
                    fenced.append((x, "acc", self.frag_of(x.acc, x)))
        for nxt in group:
            if nxt.acc not in issued:
                self.wgmma_acc[nxt] = self.wgmma_acc.get(nxt) or self.frag_of(nxt.acc, nxt)
                if not _is_zero_tile(nxt.acc):  # a zero accumulator is not read (scale-d 0)
                    fenced.append((nxt, "acc", self.wgmma_acc[nxt]))
            if not isinstance(self.vals.get(nxt.a), Smem):
                self.wgmma_a[nxt] = self.register_a(nxt)
                fenced.append((nxt, "a", self.wgmma_a[nxt]))
            issued.add(nxt.result)
        flat = [("float" if kind == "acc" else "i32", r) for _, kind, regs in fenced for r in regs]
        if not flat:
            self.asm("wgmma.fence.sync.aligned;", "", [])
            return
        st = self.struct([t for t, _ in flat])
        cons = ",".join([("=f" if t == "float" else "=r") for t, _ in flat] + [str(i) for i in range(len(flat))])
        res = self.asm("wgmma.fence.sync.aligned;", cons, flat, st)
        i = 0
        for mma, kind, regs in fenced:
            out = [self.op(f"extractvalue {st} {res}, {i + j}") for j in range(len(regs))]
            i += len(regs)
            (self.wgmma_acc if kind == "acc" else self.wgmma_a)[mma] = out

    def register_a(self, o: WgmmaMmaAsyncOp) -> list[str]:
        """The register-A operand of `o`: a 16-bit A tile is in the accumulator fragment
        (ws-lower-layouts), so k-block j of row block `rep` is the thread's registers
        8j..8j+7 of that block, packed pairwise into the four .f16x2 / .bf16x2 registers;
        an 8-bit one is in `#layout.operand_a`, four bytes per register in slot order (the
        words `nvgpu.convert_layout` built, where it did)."""
        et = elem_of(o.a.type)
        T, bits = llty(et), bits_of(et)
        if bits == 8:
            words = self.lookup((o.a, "a8_words"))
            if words is not None:
                return list(words)
            regs = self.frag_of(o.a, o)
            out = []
            for i in range(0, len(regs), 4):
                w = "0"
                for k, r in enumerate(regs[i:i + 4]):
                    b = self.op(f"zext i8 {r} to i32")
                    w = self.op(f"or i32 {w}, {self.op(f'shl i32 {b}, {8 * k}') if k else b}")
                out.append(w)
            return out
        regs = self.frag_of(o.a, o)
        out = []
        for i in range(0, len(regs), 2):
            # plain LLVM (not an inline mov.b32 {lo, hi}) so that LLVM sees through a pair
            # that ev_truncf_pair unpacked from one cvt.rn.bf16x2 and keeps the packed word
            lo, hi = (self.op(f"zext i16 {self.op(f'bitcast {T} {r} to i{bits}')} to i32") for r in regs[i:i + 2])
            out.append(self.op(f"or i32 {lo}, {self.op(f'shl i32 {hi}, 16')}"))
        return out

    def lower_wgmma(self, o: WgmmaMmaAsyncOp) -> None:
        """nvgpu.wgmma.mma_async (checked by ws-lower-mma) -> m64nNk16 / k32 wgmma.mma_async per
        row block of 64 and K step; A from a shared-memory descriptor or from registers
        (register A), B from a K-major (transposed NxK) or an N-major (KxN) descriptor;
        in flight until a wait."""
        a, b, acc = o.operands
        A, B = self.vals.get(a), self.vals.get(b)
        reg_a = not isinstance(A, Smem)
        if not isinstance(B, Smem):
            self.fail(o, "nvgpu.wgmma.mma_async: A must be a shared-memory tile or a register tile and B a "
                         "shared-memory tile (ws-lower-mma checks this)")
        il_a, il_b = (getattr(layout_of(x.type), "interleave", None) for x in (a, b))
        if (il_b.data if il_b else 0) != (il_a.data if il_a is not None and reg_a else 0):
            self.fail(o, f"nvgpu.wgmma.mma_async: B is {layout_of(b.type)} and A {layout_of(a.type)}; an "
                         "interleaved key order (interleave = 8) must be the same on both (a register A)")
        et = elem_of(a.type)
        n_major = not B.trans
        m_major = not reg_a and A.trans  # A stored KxM (M-contiguous): the transpose-A bit
        for S, what in ((A, "A"), (B, "B")):
            if isinstance(S, Smem) and (S.trans if what == "A" else not S.trans) and not S.swizzle:
                self.fail(o, f"nvgpu.wgmma.mma_async: an MN-major (transposed) {what} is read from swizzled "
                             "shared memory only (a row of 32, 64 or a multiple of 128 bytes)")
        if isinstance(et, Float16Type):
            kind, kstep = "f16.f16", 16
        elif isinstance(et, BFloat16Type):
            kind, kstep = "bf16.bf16", 16
        elif is_fp8(et) and not n_major and not m_major:
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
        # An accumulator that is a zero constant (attention's QK^T) is not read: the first
        # k-step of each row block runs with scale-d = 0 and undefined inputs, so no register
        # is zeroed per iteration.
        fresh = _is_zero_tile(acc)
        bdesc0 = self._desc(B.addr, B.swizzle, B.block_bytes if n_major and B.block_bytes else 16)
        st = self.struct(["float"] * nper)
        dl = ", ".join(f"${i}" for i in range(nper))
        for rep in range(reps):
            if not reg_a:
                # row block of this warp group: rep * W + wg
                wgi = self.op(f"lshr i32 {L.tid_in_part}, 7")
                rb = self.op(f"add i32 {self.op(f'mul i32 {wgi}, 64')}, {rep * L.wg_count * 64}")
                if m_major:  # rows rb.. of A are columns of the KxM tile: whole column blocks
                    aoff = self._mn_offset(A, rb)
                    adesc0 = self._desc(self.op(f"add i32 {A.addr}, {aoff}"), A.swizzle, A.block_bytes or 16)
                else:
                    aoff = self.op(f"mul i32 {rb}, {A.row_stride}")
                    adesc0 = self._desc(self.op(f"add i32 {A.addr}, {aoff}"), A.swizzle)
            cur = ["undef"] * nper if fresh else out[rep * nper:(rep + 1) * nper]
            for ks in range(K // kstep):
                scale_d = "0" if fresh and ks == 0 else "1"
                if not reg_a:
                    astep = (ks * kstep * A.row_stride if m_major else self._k_offset(A, ks * kstep * eb)) >> 4
                    ad = self._stepped(adesc0, astep)
                bstep = (ks * kstep * B.row_stride if n_major else self._k_offset(B, ks * kstep * eb)) >> 4
                bd = self._stepped(bdesc0, bstep)
                if reg_a:
                    # the packed registers of k-step ks in row block rep: a thread holds 2 rows of K / 4
                    # elements per row block, 4 registers per k-step
                    base = rep * (K * eb // 8) + 4 * ks
                    aregs = apacked[base:base + 4]
                    tail = f", {int(n_major)};" if kstep == 16 else ";"  # fp8 has no transpose bits
                    text = (f"{{ .reg .pred p; setp.ne.b32 p, ${nper + 5}, 0; "
                            f"wgmma.mma_async.sync.aligned.m64n{N}k{kstep}.f32.{kind} {{{dl}}}, "
                            f"{{${nper}, ${nper + 1}, ${nper + 2}, ${nper + 3}}}, ${nper + 4}, p, 1, 1"
                            f"{tail} }}")
                    cons = ",".join(["=f"] * nper + ["r"] * 4 + ["l", "r"] + [str(i) for i in range(nper)])
                    args = [("i32", x) for x in aregs] + [("i64", bd), ("i32", scale_d)]
                else:
                    tail = f", 1, 1, {int(m_major)}, {int(n_major)};" if kstep == 16 else ", 1, 1;"
                    text = (f"{{ .reg .pred p; setp.ne.b32 p, ${nper + 2}, 0; "
                            f"wgmma.mma_async.sync.aligned.m64n{N}k{kstep}.f32.{kind} {{{dl}}}, ${nper}, ${nper + 1}, p{tail} }}")
                    cons = ",".join(["=f"] * nper + ["l", "l", "r"] + [str(i) for i in range(nper)])
                    args = [("i64", ad), ("i64", bd), ("i32", scale_d)]
                res = self.asm(text, cons, args + [("float", x) for x in cur], st)
                cur = [self.op(f"extractvalue {st} {res}, {i}") for i in range(nper)]
            out[rep * nper:(rep + 1) * nper] = cur
        self.vals[o.result] = Frag(out)  # in flight until an nvgpu.wgmma.wait_group

    def ev_convert_layout(self, o: Operation, v, idx) -> str:
        """Element `idx` of `nvgpu.convert_layout` from the accumulator fragment to the 8-bit
        A fragment (#layout.operand_a; ws-lower-layouts inserts no other). The whole tile is
        converted at its first use: per row block, row (base, base + 8) and k-block of 32
        columns, thread q of a quad holds the byte pairs u_j (columns 8j + 2q, + 1, j < 4)
        and needs columns 4q..4q+3 and 16 + 4q..16 + 4q + 3, which the pairs u_(q/2) and
        u_(2 + q/2) of threads 2 (q % 2) and 2 (q % 2) + 1 are. Each thread packs
        X_0 = u_0 | u_2 << 16 and X_1 = u_1 | u_3 << 16; in round r thread q reads lane
        2 (q % 2) + ((q / 2) ^ r) of its quad, which sends X_((s % 2) ^ r), so every lane is
        read once per round and the reader gets the X it needs; two byte permutes
        (prmt 0x5410 / 0x7632) of the two words received make the two A registers.
        Interleaved (`#layout.operand_a<..., interleave = 8>`: the k positions 4q .. 4q + 3 of
        each 16 hold columns 2q, 2q + 1, 8 + 2q, 9 + 2q, the order the V^T it multiplies is
        stored in), the A registers are the thread's own u_0 | u_1 << 16 and u_2 | u_3 << 16:
        no shuffles."""
        src = o.operands[0]
        L = self.layout
        if not (isinstance(layout_of(src.type), WgmmaLayout) and isinstance(layout_of(v.type), OperandALayout)
                and bits_of(elem_of(v.type)) == 8):
            self.fail(o, f"nvgpu.convert_layout from {layout_of(src.type)} to {layout_of(v.type)}: only an 8-bit "
                         "tile from the accumulator fragment into #layout.operand_a is lowered")
        hit = self.lookup((v, idx))
        if hit is not None:
            return hit
        M, K = shape_of(v.type)
        regs = self.frag_of(src, o)  # accumulator order: per row block K / 2 bytes
        q = self.op(f"and i32 {L.lane}, 3")
        quad = self.op(f"and i32 {L.lane}, -4")
        odd = self.op(f"icmp ne i32 {self.op(f'and i32 {q}, 1')}, 0")  # q % 2
        high = self.op(f"icmp ne i32 {self.op(f'lshr i32 {q}, 1')}, 0")  # q / 2
        src_lane = []
        for r in range(2):  # lane 2 (q % 2) + ((q / 2) ^ r) of the quad
            hq = self.op(f"xor i32 {self.op(f'lshr i32 {q}, 1')}, {r}")
            even = self.op(f"shl i32 {self.op(f'and i32 {q}, 1')}, 1")
            src_lane.append(self.op(f"or i32 {quad}, {self.op(f'or i32 {even}, {hq}')}"))

        def pair(r0: str, r1: str) -> str:
            lo = self.op(f"zext i8 {r0} to i32")
            hi = self.op(f"zext i8 {r1} to i32")
            return self.op(f"or i32 {lo}, {self.op(f'shl i32 {hi}, 8')}")

        words = []
        per_rep = K // 2
        il = layout_of(v.type).interleave.data
        for rep in range(M // (64 * L.wg_count)):
            for kb in range(K // 32):
                got = {}
                for h in range(2):
                    u = [pair(*(regs[rep * per_rep + 4 * (4 * kb + j) + 2 * h + b] for b in (0, 1))) for j in range(4)]
                    if il:
                        got[h] = [self.op(f"or i32 {u[j]}, {self.op(f'shl i32 {u[j + 1]}, 16')}") for j in (0, 2)]
                        continue
                    X = [self.op(f"or i32 {u[j]}, {self.op(f'shl i32 {u[j + 2]}, 16')}") for j in (0, 1)]
                    Y = []
                    for r in range(2):  # lane s sends X_((s % 2) ^ r)
                        pick1 = odd if r == 0 else self.op(f"xor i1 {odd}, true")
                        send = self.op(f"select i1 {pick1}, i32 {X[1]}, i32 {X[0]}")
                        Y.append(self.asm("shfl.sync.idx.b32 $0, $1, $2, 31, -1;", "=r,r,r",
                                          [("i32", send), ("i32", src_lane[r])], "i32"))
                    ys0 = self.op(f"select i1 {high}, i32 {Y[1]}, i32 {Y[0]}")  # from lane 2 (q % 2)
                    ys1 = self.op(f"select i1 {high}, i32 {Y[0]}, i32 {Y[1]}")  # from lane 2 (q % 2) + 1
                    got[h] = [self.asm(f"prmt.b32 $0, $1, $2, {sel};", "=r,r,r", [("i32", ys0), ("i32", ys1)], "i32")
                              for sel in ("0x5410", "0x7632")]
                # A registers of the k-step: (row base, cols 4q..), (row + 8, cols 4q..), (base, 16 + 4q..), (+8, 16 + 4q..)
                words += [got[0][0], got[1][0], got[0][1], got[1][1]]
        self.memo[-1][(v, "a8_words")] = tuple(words)
        slots = self.slots(v.type, o)
        out = None
        for s, sidx in slots:
            w = words[s // 4]
            byte = self.op(f"trunc i32 {self.op(f'lshr i32 {w}, {8 * (s % 4)}') if s % 4 else w} to i8")
            self.memo[-1][(v, sidx)] = byte
            if sidx == idx:
                out = byte
        if out is None:
            self.fail(o, "an element of an 8-bit A fragment that is not in this thread's registers")
        return out

    def compute_before(self, wait: Operation) -> None:
        """Tiles are computed lazily where they are used; a wait keeps the IR's order: the
        register tiles that ops before `wait` in its block define and ops after it use are
        computed before it (the softmax that a schedule put between QK^T's wait and P.V's
        runs while P.V is in flight). A tile used after the wait only inside a nested region
        (the slow path of a versioned mask) is left to that region, and so are narrow tiles
        (f16 / bf16 / fp8: packed register-A operands such as P): written before the wait,
        they would overwrite registers that the in-flight wgmma still reads, and ptxas
        serializes the wgmmas (C7513)."""
        block = wait.parent_block()
        if block is None:
            return
        ops = list(block.ops)
        at = ops.index(wait)
        after = set(ops[at + 1:])
        for x in ops[:at]:
            for r in x.results:
                if not isinstance(r.type, TensorType) or r in self.vals:
                    continue
                if not isinstance(layout_of(r.type), WgmmaLayout | SliceLayout) or bits_of(elem_of(r.type)) < 32:
                    continue
                if any(u.operation in after for u in r.uses):
                    self.frag_of(r, x)

    def wgmma_wait(self, regs: list[str], pending: int) -> list[str]:
        """`wgmma.wait_group pending`; the accumulators pass through the asm so that no
        read of them is scheduled before the wait."""
        total = len(regs)
        if not total:  # a wait for the groups alone (ws-stage-operands: a staging buffer's readers)
            self.asm(f"wgmma.wait_group.sync.aligned {pending};", "", [])
            return []
        st = self.struct(["float"] * total)
        res = self.asm(f"wgmma.wait_group.sync.aligned {pending};",
                       ",".join(["=f"] * total + [str(i) for i in range(total)]), [("float", x) for x in regs], st)
        return [self.op(f"extractvalue {st} {res}, {i}") for i in range(total)]

    def lower_mma_wait(self, o: Operation) -> None:
        pending = o.pending.value.data
        self.compute_before(o)
        groups = [self.frag_of(v, o) for v in o.operands]
        flat = self.wgmma_wait([r for g in groups for r in g], pending)
        i = 0
        for r, g in zip(o.results, groups):
            self.vals[r] = Frag(flat[i:i + len(g)])
            i += len(g)


def _ops_before(o: Operation):
    x = o.prev_op
    while x is not None:
        yield x
        x = x.prev_op


def _ops_after(o: Operation):
    x = o.next_op
    while x is not None:
        yield x
        x = x.next_op


def _defined_in(v, block) -> bool:
    """`v` is an op result defined in `block` (not a value from outside it)."""
    owner = v.owner
    return isinstance(owner, Operation) and owner.parent_block() is block


def _is_zero_tile(v) -> bool:
    """`v` is an `arith.constant` tile of zeros (a dot's accumulator that starts empty)."""
    return isinstance(v.type, TensorType) and splat_constant(v) == 0
