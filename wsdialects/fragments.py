"""Which registers of a thread hold which elements of a tile in a register layout (the facts
the LLVM emitter and the tests use for #layout.wgmma, its slices, #layout.operand_a and
#layout.blocked). `wsdialects.layout` re-exports these names."""

from __future__ import annotations

from collections.abc import Sequence

# ---- facts the lowering uses: which registers of a thread hold which elements
#
# In a warp-group branch of G warp groups, thread t (t < 128 G) of warp group g = t / 128,
# warp w = (t / 32) % 4, lane l = t % 32 has the fragment base row 64 g + 16 w + l / 4 and
# base column 2 (l % 4) (`acc_fragment_base`; the emitter computes both once per branch). The functions below
# give, per register, the (row, column) offset from that base: constants only, so every
# per-thread index is base + constant.

# The bits each part of a fragment base may set (the shared-address lowering splits addresses on
# them): the row within one warp group (16 warp + lane / 4: 0x37; a second warp group adds 64),
# the column 2 (lane % 4) and the 8-bit A fragment's column 4 (lane % 4).
ACC_ROW_BITS, ACC_COL_BITS, A8_COL_BITS = 0x37, 0x6, 0xC


def acc_fragment_base(tid: int) -> tuple[int, int]:
    """(row, column) of the fragment base of thread `tid`, counted from the first thread of
    its warp-group branch (branches are whole warp groups, so tid % 32 is the lane): row
    64 (tid / 128) + 16 ((tid / 32) % 4) + (tid % 32) / 4, column 2 (tid % 4). The emitter
    computes the same two values once per branch (`KernelFrame.lower_dispatch`)."""
    lane = tid % 32
    return 64 * (tid // 128) + 16 * ((tid // 32) % 4) + lane // 4, 2 * (lane % 4)


def acc_fragment_offsets(rows: int, cols: int, warp_groups: int) -> list[tuple[int, int]]:
    """Register r of a rows x cols tile in #layout.wgmma<warp_groups>: per row block of
    64 x warp_groups rows, the m64nN accumulator's N / 2 registers, register r at row
    offset 8 ((r / 2) % 2) and column offset 8 (r / 4) + r % 2 (PTX ISA, wgmma D fragment).
    Registers 8j..8j+7 of a block are also k-block j of wgmma's register-A fragment."""
    out = []
    for rep in range(rows // (64 * warp_groups)):
        for r in range(cols // 2):
            out.append((rep * warp_groups * 64 + 8 * ((r >> 1) & 1), 8 * (r >> 2) + (r & 1)))
    return out


def operand_a8_offsets(rows: int, cols: int, warp_groups: int, interleave: int = 0) -> list[tuple[int, int]]:
    """Byte s of a rows x cols 8-bit tile in #layout.operand_a: per row block of 64 x
    warp_groups rows and k-block kb of 32 columns, the m64nNk32 A fragment's 16 bytes,
    register j = (s / 4) % 4 at row offset 8 (j % 2) and column offset 32 kb + 16 (j / 2)
    + s % 4 (PTX ISA, wgmma .m64nNk32 A fragment for .e4m3 / .e5m2), counted from the row
    base of the accumulator and the column base 4 (l % 4), twice the accumulator's.
    Interleaved, the column at that k position (`interleaved`): 32 kb + 16 (j / 2) +
    8 ((s / 2) % 2) + s % 2 from the accumulator's column base 2 (l % 4)."""
    out = []
    for rep in range(rows // (64 * warp_groups)):
        for s in range(cols // 2):
            j = (s >> 2) & 3
            col = 8 * ((s >> 1) & 1) + (s & 1) if interleave else s & 3
            out.append((rep * warp_groups * 64 + 8 * (j & 1), 32 * (s >> 4) + 16 * (j >> 1) + col))
    return out


def blocked_base(tid: int, lanes: Sequence[int], warps: Sequence[int]) -> tuple[int, int]:
    """(row, column) of thread `tid`'s first block in #layout.blocked<lanes, warps>."""
    (tr, tc), (_, wc) = lanes, warps
    lane, warp = tid % 32, tid // 32
    return 4 * ((warp // wc) * tr + lane // tc), 4 * ((warp % wc) * tc + lane % tc)


def blocked_offsets(rows: int, cols: int, lanes: Sequence[int], warps: Sequence[int]) -> list[tuple[int, int]]:
    """Register s of a rows x cols tile in #layout.blocked<lanes, warps>: block b = s / 16
    (blocks row by row over the repetitions), element (i, j) = ((s / 4) % 4, s % 4), at
    (row, column) offsets from `blocked_base`."""
    (tr, tc), (wr, wc) = lanes, warps
    step_r, step_c = 4 * tr * wr, 4 * tc * wc
    out = []
    for br in range(rows // step_r):
        for bc in range(cols // step_c):
            for i in range(4):
                for j in range(4):
                    out.append((br * step_r + i, bc * step_c + j))
    return out


def row_slice_offsets(rows: int, warp_groups: int) -> list[int]:
    """Row offsets a thread holds of a row slice (#layout.slice<dim = 1, #layout.wgmma>):
    per row block, rows base and base + 8 (the four lanes of a quad hold the same rows)."""
    return [rep * warp_groups * 64 + 8 * h for rep in range(rows // (64 * warp_groups)) for h in (0, 1)]


def col_slice_offsets(cols: int) -> list[int]:
    """Column offsets a thread holds of a column slice (#layout.slice<dim = 0, ...>):
    columns base + 8j and base + 8j + 1."""
    return [8 * j + b for j in range(cols // 8) for b in (0, 1)]
