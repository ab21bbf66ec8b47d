"""Where a thread's elements of a shared-memory tile are (part of the LLVM emitter: `SharedTiles`
inherits these methods). An element's address is a per-thread base register plus a constant
that the load or store carries as its immediate offset:

    %base = add i32 %slot, %off          ; smem_offset(R, C) of the thread's fragment base (R, C)
    %b = call i32 asm sideeffect "xor.b32 $0, $1, 48;", "=r,r"(i32 %base)
    %x = call i16 asm sideeffect "ld.shared.b16 $0, [$1+2050];", "=h,r"(i32 %b)

For element (R + r, C + c) of a tile in a slot or staging buffer (1024-byte aligned), R and C
the thread's runtime fragment base and r, c constants, `element_split` gives (x, a) with
smem_offset(R + r, C + c) = (smem_offset(R, C) ^ x) + a, x only 16-byte chunk bits, checked for
every R and C the thread may have (`known_bits`). A tile read or written per element thus costs
one base register and at most one xor per distinct chunk (8 for a 128-byte swizzle) -- an asm,
which LLVM does not hoist out of a loop and ptxas shares. Written as plain LLVM arithmetic, an
address that LLVM can prove the same in every iteration of a loop (a depth-1 ring's slot, a
staging buffer) is hoisted out of the loop and held in a register across it: one per 32-bit
element of the tile. Unswizzled tiles and 1-D arrays are linear: base plus constant. Elements
without such a split (runtime index bits not known) keep `smem_elem_addr`,
`wsdialects.layout.smem_offset` step for step."""

from __future__ import annotations

import functools

import numpy as np

from wsdialects.layout import SWIZZLE_CHUNK_SHIFT, SWIZZLE_LINE_SHIFT, smem_offset, swizzle_mask
from wsdialects.lower.llvm.types import Smem, nbytes


def _span(mask: int) -> np.ndarray:
    """Every value whose set bits lie in `mask`."""
    vals = np.zeros(1, np.int64)
    for b in range(mask.bit_length()):
        if mask >> b & 1:
            vals = np.concatenate([vals, vals + (1 << b)])
    return vals


@functools.lru_cache(maxsize=4096)
def element_split(rt_row_bits: int, c_row: int, rt_col_bits: int, c_col: int, elem_bytes: int, row_stride: int,
                  swizzle: int, block_bytes: int, rows: int, cols: int) -> tuple[int, int] | None:
    """(x, a) such that element (R + c_row, C + c_col) of a stored rows x cols tile is at
    `smem_offset` (R, C) ^ x, plus a, for every runtime row R and column C whose set bits lie in
    `rt_row_bits` / `rt_col_bits` (those that keep the element in the tile); x only the 16-byte
    chunk bits (offset (0, 0) is 0, so x and a are those bits of offset (c_row, c_col) and the
    others). None where that does not hold: checked for every such R and C (a few thousand at
    most), so any swizzle, column blocks inside or beyond the 8-line pattern included."""
    full = smem_offset(c_row, c_col, elem_bytes, row_stride, swizzle, block_bytes)
    m = swizzle_mask(swizzle) << SWIZZLE_CHUNK_SHIFT if swizzle else 0
    x, a = full & m, full & ~m
    R, C = (g.ravel() for g in np.meshgrid(_span(rt_row_bits), _span(rt_col_bits)))
    keep = (R + c_row < rows) & (C + c_col < cols)
    R, C = R[keep], C[keep]
    if not len(R):
        return None
    want = smem_offset(R + c_row, C + c_col, elem_bytes, row_stride, swizzle, block_bytes)
    got = (smem_offset(R, C, elem_bytes, row_stride, swizzle, block_bytes) ^ x) + a
    return (x, a) if np.array_equal(want, got) else None


def bits_below(n: int) -> int:
    """The bits a value in [0, n) may set (a `known_bits` entry): 2^ceil(log2 n) - 1."""
    return (1 << (n - 1).bit_length()) - 1


def at(offset: int) -> str:
    """The immediate of a PTX address operand: `[$1+16]` is `[$1` + at(16) + `]`."""
    return f"+{offset}" if offset else ""


class SharedAddress:
    """Mixin of `kernel.Kernel` (uses its emitter state: known_bits, memo, op, asm, ...)."""

    def smem_elem_addr(self, S, row: str, col: str) -> str:
        """i32 shared address of logical element (row, col) of tile `S`: S.addr +
        `wsdialects.layout.smem_offset` of the stored element, written step for step."""
        if S.trans:
            row, col = col, row
        eb = nbytes(S.elem)
        r = self.op(f"mul i32 {row}, {S.row_stride}")
        c = self.op(f"mul i32 {col}, {eb}") if eb != 1 else col
        blk = None
        if S.block_bytes:  # column block c / swizzle, at c % swizzle inside it
            blk = self.op(f"udiv i32 {c}, {S.swizzle}")
            c = self.op(f"urem i32 {c}, {S.swizzle}")
        off = self.op(f"add i32 {r}, {c}")
        # the hardware swizzles by address: a block of fewer rows than the 8-line pattern
        # (smem_offset) takes its place in the pattern, so its offset is added first
        inside = blk is not None and S.block_bytes % (8 * S.swizzle) != 0
        if inside:
            off = self.op(f"add i32 {off}, {self.op(f'mul i32 {blk}, {S.block_bytes}')}")
        if S.swizzle:  # layout.swizzled
            line = self.op(f"lshr i32 {off}, {SWIZZLE_LINE_SHIFT}")
            m = self.op(f"and i32 {line}, {swizzle_mask(S.swizzle)}")
            off = self.op(f"xor i32 {off}, {self.op(f'shl i32 {m}, {SWIZZLE_CHUNK_SHIFT}')}", "swz")
        if blk is not None and not inside:
            off = self.op(f"add i32 {off}, {self.op(f'mul i32 {blk}, {S.block_bytes}')}")
        return self.op(f"add i32 {S.addr}, {off}")

    def smem_ref(self, S, ridx, cidx=None) -> tuple[str, int]:
        """(register, constant): element (ridx, cidx) of tile `S` is at register + constant,
        each index a (runtime, constant) pair (`cidx` None: a 1-D array). The register is
        the thread's base of the tile (memoized), or an xor of it (see the module)."""
        eb = nbytes(S.elem)
        if cidx is None:  # a plain 1-D array
            (rt, c), = ridx
            base = self._smem_base(S, (rt,), lambda: self.op(f"add i32 {S.addr}, {self.op(f'mul i32 {rt}, {eb}')}"))
            return base, c * eb
        if S.trans:
            ridx, cidx = cidx, ridx
        (rr, rc), (cr, cc) = ridx, cidx
        stored = Smem(S.addr, S.shape[::-1] if S.trans else S.shape, S.elem, S.swizzle, False, S.block_bytes, S.align)
        if len(S.shape) == 2 and not S.swizzle and not S.block_bytes:  # row-major: linear in both indices
            base = self._smem_base(stored, (rr, cr), lambda: self.smem_elem_addr(stored, rr, cr))
            return base, rc * S.row_stride + cc * eb
        bits = self.known_bits
        split = None
        if (len(S.shape) == 2 and S.align and rr in bits and cr in bits
                and not S.align % (1 << (SWIZZLE_LINE_SHIFT + (S.swizzle // 16).bit_length() - 1))):
            split = element_split(bits[rr], rc, bits[cr], cc, eb, S.row_stride, S.swizzle, S.block_bytes,
                                  *stored.shape)
        if split is None:
            return self.smem_elem_addr(stored, self._index(ridx), self._index(cidx)), 0
        base = self._smem_base(stored, (rr, cr), lambda: self.smem_elem_addr(stored, rr, cr))
        if split[0]:
            key = ("smem_xor", base, split[0])
            b = self.lookup(key)
            if b is None:
                b = self.memo[-1][key] = self.asm(f"xor.b32 $0, $1, {split[0]};", "=r,r", [("i32", base)], "i32")
            base = b
        return base, split[1]

    def _smem_base(self, S, rts: tuple, make) -> str:
        """The thread's base address of tile `S` at runtime indices `rts`, made once per scope."""
        key = ("smem_base", S.addr, S.shape, S.row_stride, S.swizzle, S.block_bytes, nbytes(S.elem), rts)
        base = self.lookup(key)
        if base is None:
            base = self.memo[-1][key] = make()
        return base
