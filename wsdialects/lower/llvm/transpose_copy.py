"""The 8-bit transposing copy with `ldmatrix.trans` and `stmatrix` (part of the LLVM emitter,
`kernel.Kernel` inherits `TransposeCopy`): a tile in `#layout.transpose_copy` is read from a
shared-memory tile that stores its dim 0 contiguously (V as TMA wrote it: keys x d, d
contiguous; the tile is V^T = tile.trans of it) and stored into a slot that stores dim 1
contiguously (V^T's ring: keys contiguous, what fp8 wgmma reads as a K-major B). This is
FlashAttention-3's in-kernel V transpose, laid out here so that both sides are free of
shared-memory bank conflicts under the 128-byte swizzle of both tiles.

A unit is 32 rows (d) x 16 columns (keys) of the tile; per unit a warp issues

    ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {r0, r1, r2, r3}, [ld_addr]
    w0 = prmt(r0, r1, sA); w1 = prmt(r0, r1, sB); w2 = prmt(r2, r3, sA); w3 = prmt(r2, r3, sB)
    stmatrix.sync.aligned.m8n8.x4.shared.b16 [st_addr], {w0, w1, w2, w3}

ldmatrix reads matrix m (lane 8m + r gives row r's address) as 8 rows of 16 bytes; with
.trans lane l = 4c + q receives, per matrix, the 16-bit elements (rows 2q, 2q + 1; column c):
two keys x two d (bytes 2c, 2c + 1 of the rows). Matrices 2p and 2p + 1 read d chunk p
(16 d) of the unit, each 8 of its 16 keys, chosen so that a lane's two registers hold keys
4q .. 4q + 3 (`ld_lane`) and each matrix's 8 rows have 8 distinct key % 8 (the 128-byte
swizzle moves chunk x of row k to x ^ (k % 8): 8 distinct 16-byte bank groups, one
wavefront). The byte permutes make the words (d, keys 4q .. 4q + 3) for d = 2c and 2c + 1
of the chunk; stmatrix writes register j of lane 4c + q as bytes 4q .. 4q + 3 of row c of
matrix j. Matrices 2p, 2p + 1 take the even and odd d of chunk p, swapped for c >= 4 so
that each matrix's 8 rows (d) also have 8 distinct d % 8 (`st_lane`); the selectors
(`selectors`) are per lane, computed once. A 128 x 128 tile is 32 units: 32 ldmatrix.x4 and
32 stmatrix.x4, 4 wavefronts each, 256 in all (the 32-bit copy of #layout.blocked: 768).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from wsdialects.layout import INTERLEAVE, Layout, SharedLayout, TransposeCopyLayout, blocked_for, interleaved, layout_of
from wsdialects.lower.llvm.shared_address import at, bits_below
from wsdialects.lower.llvm.types import Smem, bits_of, elem_of, shape_of

UNIT_ROWS, UNIT_COLS = 32, 16  # one ldmatrix.x4 / stmatrix.x4 per warp
SEL_LO, SEL_HI = 0x6420, 0x7531  # prmt: bytes 0 and 2 (1 and 3) of two registers, low register first


def transpose_copy_for(rows: int, cols: int, warps: int) -> TransposeCopyLayout | None:
    """A #layout.transpose_copy over `warps` warps for a rows x cols tile, the warps along
    the columns first (each warp reads whole rows of the stored tile); None where the units
    do not divide among them."""
    if rows % UNIT_ROWS or cols % UNIT_COLS or warps & (warps - 1):
        return None
    ur, uc = rows // UNIT_ROWS, cols // UNIT_COLS
    wc = warps
    while wc >= 1:
        wr = warps // wc
        if uc % wc == 0 and ur % wr == 0:
            return TransposeCopyLayout((wr, wc))
        wc //= 2
    return None


def copy_layout_for(t: TensorType, src: Layout | None, warps: int, interleave: bool) -> Layout | None:
    """The register layout of an 8-bit 2-D tile `t` read from shared memory only to be stored
    into a slot (a transposed copy of an fp8 V, by ws-producer-transpose's producer or
    ws-stage-operands' consumers): read along dim 0 (`src`: a tile.trans of a swizzled slot) in
    units of 32 x 16, #layout.transpose_copy (ldmatrix.trans / stmatrix, no bank conflicts;
    interleaved where the slot is, wsdialects/lower/key_order.py); otherwise 4 x 4 blocks per
    thread (#layout.blocked: 32 bits at a time on both sides); None: not such a tile."""
    shape = t.get_shape()
    if len(shape) != 2 or bits_of(t.element_type) != 8:
        return None
    if isinstance(src, SharedLayout) and src.perm() == [0, 1] and src.swizzle.data:
        tc = transpose_copy_for(shape[0], shape[1], warps)
        if tc is not None:
            return TransposeCopyLayout(tc.warp_dims(), INTERLEAVE) if interleave else tc
    return blocked_for(shape[0], shape[1], warps)


def units(rows: int, cols: int, warps: list[int]) -> list[tuple[int, int]]:
    """The (row, column) offsets of a thread's units from its warp's base (`warp_base`)."""
    wr, wc = warps
    return [(UNIT_ROWS * wr * i, UNIT_COLS * wc * j)
            for i in range(rows // (UNIT_ROWS * wr)) for j in range(cols // (UNIT_COLS * wc))]


def warp_base(warp: int, warps: list[int]) -> tuple[int, int]:
    wc = warps[1]
    return UNIT_ROWS * (warp // wc), UNIT_COLS * (warp % wc)


def _swap(lane: int) -> int:
    """1 where lane l's matrix half (l / 8) % 2 differs from its row half (l / 4) % 2."""
    return ((lane >> 3) ^ (lane >> 2)) & 1


def ld_lane(lane: int, interleave: int = 0) -> tuple[int, int]:
    """(row, column) in its unit of the row (16 bytes along dim 0) whose address lane l gives
    ldmatrix: matrix m = l / 8 reads d chunk m / 2; its row r = l % 8 is key 4 (r / 2) +
    2 ((m % 2) ^ (r / 4)) + r % 2. Interleaved (the keys stored in `interleaved` order), key
    8 (m % 2) + r: lane q's word is then keys 2q, 2q + 1, 8 + 2q, 9 + 2q, stored positions
    4q .. 4q + 3."""
    if interleave:
        return lane & 16, lane & 15
    return lane & 16, ((lane & 6) << 1) | (_swap(lane) << 1) | (lane & 1)


def st_lane(lane: int) -> tuple[int, int]:
    """(row, column) in its unit of the row (16 bytes along dim 1) whose address lane l gives
    stmatrix: matrix j = l / 8, row r = l % 8 is d 16 (j / 2) + 2 r + ((j % 2) ^ (r / 4))."""
    return (lane & 16) + ((lane & 7) << 1) + _swap(lane), 0


def selectors(lane: int, interleave: int = 0) -> tuple[int, int]:
    """The prmt selectors (sA, sB) of lane l = 4c + q: lanes q >= 2 got their keys 4q, 4q + 1
    in the second register of a pair (swap the operands: ^ 0x4444; not where interleaved);
    lanes c >= 4 store the odd d first (^ 0x1111)."""
    s = SEL_LO ^ (0x4444 if lane & 2 and not interleave else 0) ^ (0x1111 if lane & 16 else 0)
    return s, s ^ 0x1111


def element(tid: int, slot: int, rows: int, cols: int, warps: list[int], interleave: int = 0) -> tuple[int, int]:
    """(row, column) of the element register `slot` of thread `tid` holds: unit slot / 16,
    word j = (slot / 4) % 4, byte k = slot % 4: row 16 (j / 2) + 2c + ((j % 2) ^ (c / 4)),
    column 4q + k of the unit (lane 4c + q); interleaved, column `interleaved`(4q + k), the
    key stored at that position."""
    lane, warp = tid % 32, tid // 32
    br, bc = warp_base(warp, warps)
    ur, uc = units(rows, cols, warps)[slot // 16]
    j, k = (slot // 4) % 4, slot % 4
    c, q = lane >> 2, lane & 3
    col = interleaved(4 * q + k) if interleave else 4 * q + k
    return br + ur + 16 * (j >> 1) + 2 * c + ((j & 1) ^ (c >> 2)), bc + uc + col


@dataclass
class Words:
    """A #layout.transpose_copy tile in registers: per unit, the four words stmatrix stores."""
    units: list[list[str]]


class TransposeCopy:
    """Mixin of `kernel.Kernel` (uses its emitter state: vals, known_bits, asm, ...)."""

    def transpose_copy_bases(self, lay: TransposeCopyLayout, tip: str, lane: str) -> dict:
        """The thread's runtime parts, once per branch: the ldmatrix and stmatrix row addresses'
        (row, column) of its first unit (`ld_lane`, `st_lane` plus the warp's base), the two
        prmt selectors; `known_bits` says which bits the address parts may set."""
        wr, wc = lay.warp_dims()
        warp = self.op(f"lshr i32 {tip}, 5")
        wrow = self.op(f"mul i32 {self.op(f'udiv i32 {warp}, {wc}')}, {UNIT_ROWS}")
        wcol = self.op(f"mul i32 {self.op(f'urem i32 {warp}, {wc}')}, {UNIT_COLS}")
        half = self.op(f"and i32 {lane}, 16")
        x = self.op(f"xor i32 {self.op(f'lshr i32 {lane}, 3')}, {self.op(f'lshr i32 {lane}, 2')}")
        swap = self.op(f"and i32 {x}, 1")
        pairs = self.op(f"shl i32 {self.op(f'and i32 {lane}, 6')}, 1")
        key = self.op(f"or i32 {pairs}, {self.op(f'shl i32 {swap}, 1')}")
        key = self.op(f"or i32 {key}, {self.op(f'and i32 {lane}, 1')}")
        if lay.interleave.data:  # ld_lane: key 8 (m % 2) + r
            key = self.op(f"and i32 {lane}, 15")
        ld_row = self.op(f"add i32 {wrow}, {half}", "ldrow")
        ld_col = self.op(f"add i32 {wcol}, {key}", "ldcol")
        rows2 = self.op(f"shl i32 {self.op(f'and i32 {lane}, 7')}, 1")
        srow = self.op(f"add i32 {self.op(f'add i32 {half}, {rows2}')}, {swap}")
        st_row = self.op(f"add i32 {wrow}, {srow}", "strow")
        q2 = self.op(f"and i32 {self.op(f'lshr i32 {lane}, 1')}, {0 if lay.interleave.data else 1}")
        c4 = self.op(f"and i32 {self.op(f'lshr i32 {lane}, 4')}, 1")
        q2, c4 = self.op(f"mul i32 {q2}, {0x4444}"), self.op(f"mul i32 {c4}, {0x1111}")
        sel_a = self.op(f"xor i32 {self.op(f'xor i32 {q2}, {c4}')}, {SEL_LO}", "sela")
        sel_b = self.op(f"xor i32 {sel_a}, {0x1111}", "selb")
        rb, cb = UNIT_ROWS * bits_below(wr), UNIT_COLS * bits_below(wc)  # UNIT_ROWS * i for i < wr, any warp count
        self.known_bits[ld_row] = rb | 16
        self.known_bits[ld_col] = cb | 15
        self.known_bits[st_row] = rb | 31
        self.known_bits[wcol] = cb
        return {"ld": (ld_row, ld_col), "st": (st_row, wcol), "sel": (sel_a, sel_b)}

    def _tc_check(self, o: Operation, S, v: SSAValue, trans: bool, what: str) -> None:
        if not isinstance(S, Smem) or bits_of(S.elem) != 8 or len(S.shape) != 2 or S.trans != trans:
            side = "stores dim 0 contiguously (a tile.trans of a slot)" if trans else "stores dim 1 contiguously (a slot)"
            self.fail(o, f"{what} of a #layout.transpose_copy tile: the shared-memory tile must be 8-bit and "
                         f"2-D and {side}")
        lay = layout_of(v.type)
        if self.layout is None or lay not in self.tc_bases:
            self.fail(o, f"{what}: #layout.transpose_copy outside the warp-group branch it was given for")
        (wr, wc), (rows, cols) = lay.warp_dims(), shape_of(v.type)
        if rows % (UNIT_ROWS * wr) or cols % (UNIT_COLS * wc) or 32 * wr * wc != self.layout.threads:
            self.fail(o, f"{what}: {lay} does not fit a {rows}x{cols} tile in a branch of "
                         f"{self.layout.threads // 32} warps (units of {UNIT_ROWS}x{UNIT_COLS}, warps {wr}x{wc})")

    def load_transpose_copy(self, o: Operation, only: int | None = None) -> list[list[str]]:
        """`nvgpu.smem.load` into #layout.transpose_copy: per unit one ldmatrix.x4.trans and
        four prmt; `only`: that unit alone (a copy reads each unit right before storing it)."""
        v = o.results[0]
        S = self.vals.get(o.operands[0])
        self._tc_check(o, S, v, True, "nvgpu.smem.load")
        lay = layout_of(v.type)
        b = self.tc_bases[lay]
        (lr, lc), (sa, sb) = b["ld"], b["sel"]
        out = []
        st4 = self.struct(["i32"] * 4)
        for u, (ro, co) in enumerate(units(*shape_of(v.type), lay.warp_dims())):
            if only is not None and u != only:
                continue
            addr, off = self.smem_ref(S, (lr, ro), (lc, co))
            res = self.asm(f"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{$0, $1, $2, $3}}, [$4{at(off)}];",
                           "=r,=r,=r,=r,r", [("i32", addr)], st4)
            r = [self.op(f"extractvalue {st4} {res}, {i}") for i in range(4)]
            out.append([self.asm("prmt.b32 $0, $1, $2, $3;", "=r,r,r,r",
                                 [("i32", r[2 * p]), ("i32", r[2 * p + 1]), ("i32", s)], "i32")
                        for p in (0, 1) for s in (sa, sb)])
        if only is None:
            self.vals[v] = Words(out)
        return out

    def store_transpose_copy(self, v: SSAValue, S, op: Operation) -> None:
        """A #layout.transpose_copy tile into the slot `S`: one stmatrix.x4 per unit; a tile
        whose load was left to its store (`_stored_next`) is read unit by unit here."""
        self._tc_check(op, S, v, False, "nvgpu.smem.store")
        lay = layout_of(v.type)
        sr, sc = self.tc_bases[lay]["st"]
        held = self.vals.get(v)
        load = v.owner if isinstance(v.owner, Operation) and v.owner.name == "nvgpu.smem.load" else None
        if not isinstance(held, Words) and load is None:
            self.fail(op, "nvgpu.smem.store of a #layout.transpose_copy tile that no nvgpu.smem.load read")
        # the slot's address, opaque to LLVM here: the thread's base is computed in the copy,
        # not hoisted out of the loop (each store: an xor of it and an immediate offset)
        addr = self.asm("mov.b32 $0, $1;", "=r,r", [("i32", S.addr)], "i32")
        S = Smem(addr, S.shape, S.elem, S.swizzle, S.trans, S.block_bytes, S.align)
        for u, (ro, co) in enumerate(units(*shape_of(v.type), lay.warp_dims())):
            w = held.units[u] if isinstance(held, Words) else self.load_transpose_copy(load, u)[0]
            addr, off = self.smem_ref(S, (sr, ro), (sc, co))
            self.asm(f"stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0{at(off)}], {{$1, $2, $3, $4}};", "r,r,r,r,r",
                     [("i32", addr)] + [("i32", x) for x in w])

    def is_transpose_copy(self, t) -> bool:
        return isinstance(layout_of(t), TransposeCopyLayout) and bits_of(elem_of(t)) == 8
