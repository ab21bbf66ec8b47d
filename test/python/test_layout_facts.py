"""The layout facts the LLVM emitter follows (wsdialects/layout.py, the section "facts the
lowering uses"), checked as facts: the wgmma accumulator fragment gives every element of a
tile to exactly one register of one thread, and the shared-memory swizzle is TMA's
permutation of 16-byte chunks. That the emitter writes the same arithmetic is checked in
test_shared_tiles.py (test_emitter_addresses_are_the_layout_rule)."""

import pytest

from wsdialects.layout import (
    acc_fragment_base,
    acc_fragment_offsets,
    col_slice_offsets,
    column_blocks,
    row_slice_offsets,
    slot_swizzle,
    smem_offset,
    swizzle_bytes,
    swizzled,
)


@pytest.mark.parametrize("rows,cols,groups", [(64, 8, 1), (64, 256, 1), (128, 64, 1), (128, 256, 2), (256, 16, 2)])
def test_fragment_covers_the_tile_once(rows, cols, groups):
    owner = {}
    for t in range(128 * groups):
        r0, c0 = acc_fragment_base(t)
        for reg, (dr, dc) in enumerate(acc_fragment_offsets(rows, cols, groups)):
            e = (r0 + dr, c0 + dc)
            assert e not in owner, (t, reg, owner.get(e))
            owner[e] = (t, reg)
    assert set(owner) == {(r, c) for r in range(rows) for c in range(cols)}


def test_fragment_is_the_ptx_m64nN_d_layout():
    # PTX ISA, wgmma .m64nNk16 D fragment: thread t holds d[i] at row 16 (t / 32) + t % 32 / 4
    # + 8 (i % 4 / 2), column 8 (i / 4) + 2 (t % 4) + i % 2
    for t in range(128):
        r0, c0 = acc_fragment_base(t)
        for i, (dr, dc) in enumerate(acc_fragment_offsets(64, 32, 1)):
            assert (r0 + dr, c0 + dc) == (16 * (t // 32) + t % 32 // 4 + 8 * (i % 4 // 2), 8 * (i // 4) + 2 * (t % 4) + i % 2)


def test_slices_are_the_fragment_rows_and_columns():
    frag = acc_fragment_offsets(128, 32, 1)
    assert sorted(set(r for r, _ in frag)) == row_slice_offsets(128, 1)
    assert sorted(set(c for _, c in frag)) == col_slice_offsets(32)


@pytest.mark.parametrize("swizzle", [32, 64, 128])
def test_swizzle_permutes_chunks_within_each_8_row_atom(swizzle):
    atom = 8 * swizzle
    for base in (0, atom, 5 * atom):
        got = sorted(swizzled(base + o, swizzle) for o in range(atom))
        assert got == list(range(base, base + atom))
        for o in range(0, atom, 16):  # a 16-byte chunk moves whole
            assert [swizzled(base + o + b, swizzle) - swizzled(base + o, swizzle) for b in range(16)] == list(range(16))
    # 128B: CUTLASS Swizzle<3, 4, 3>: bits [7, 10) XORed into bits [4, 7)
    if swizzle == 128:
        assert all(swizzled(o, 128) == o ^ (((o >> 7) & 7) << 4) for o in range(4096))
    assert swizzled(100, 0) == 100


def test_swizzle_choices():
    assert [swizzle_bytes(b) for b in (16, 32, 64, 128, 256)] == [None, 32, 64, 128, None]
    assert [slot_swizzle(b) for b in (16, 32, 64, 128, 256, 384)] == [None, 32, 64, 128, 128, 128]
    assert column_blocks(256, 128) == 2 and column_blocks(128, 128) == 1 and column_blocks(48, 0) == 1


def test_column_blocks_are_tiles_of_their_own():
    # a 16 x 128 f16 tile (256-byte rows) is two 16 x 64 blocks of 128-byte swizzled rows
    rows, block = 16, 16 * 128
    for r in range(rows):
        for c in range(128):
            inner = smem_offset(r, c % 64, 2, 128, 128)
            assert smem_offset(r, c, 2, 128, 128, block) == (c // 64) * block + inner
