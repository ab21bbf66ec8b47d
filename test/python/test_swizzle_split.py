"""`wsdialects.layout.swizzle_split`, which the emitter uses to address a slot's elements from
one runtime base per thread (an xor and an add each): wherever it gives (x, a), every runtime
row and column whose bits lie in the given masks lands where `smem_offset` says; and it
declines where a constant and a runtime part share a bit (a carry would break the xor)."""

import itertools
import random

import pytest

from wsdialects.layout import acc_fragment_base, smem_offset, swizzle_split


def values(mask: int):
    bits = [1 << i for i in range(16) if mask >> i & 1]
    for r in range(len(bits) + 1):
        for c in itertools.combinations(bits, r):
            yield sum(c)


# the fragment bases' bits (acc_fragment_base: row 64 wg + 16 w + lane / 4, column 2 (lane % 4),
# the 8-bit A fragment's 4 (lane % 4)), for one and two warp groups
ROW1, ROW2, COL, COL4 = 0x37, 0x77, 0x6, 0xC


def test_masks_cover_the_fragment_bases():
    for tid in range(256):
        r, c = acc_fragment_base(tid)
        assert r & ~ROW2 == 0 and c & ~COL == 0 and (2 * c) & ~COL4 == 0
        if tid < 128:
            assert r & ~ROW1 == 0


@pytest.mark.parametrize("swizzle", [32, 64, 128])
@pytest.mark.parametrize("eb", [1, 2, 4])
def test_split_matches_smem_offset(swizzle, eb):
    rng = random.Random(swizzle * 10 + eb)
    applied = 0
    for mr, mc in ((ROW2, COL), (ROW1, COL4), (COL, ROW2), (COL4, ROW1)):
        for block in (0, 128 * swizzle):
            for _ in range(300):
                # constants mostly clear of the runtime bits (the cases the emitter meets), some not
                cr = rng.randrange(256) & (~mr if rng.random() < 0.8 else -1)
                cc = rng.randrange(256) & (~mc if rng.random() < 0.8 else -1)
                split = swizzle_split(mr, cr, mc, cc, eb, swizzle, swizzle, block)
                if split is None:
                    continue
                applied += 1
                x, a = split
                for R in values(mr):
                    for C in values(mc):
                        if not block and (C + cc) * eb >= swizzle:
                            continue
                        want = smem_offset(R + cr, C + cc, eb, swizzle, swizzle, block)
                        assert (smem_offset(R, C, eb, swizzle, swizzle, block) ^ x) + a == want
    assert applied > 10


def test_declines_a_carry():
    # row base may set bit 0; a constant row offset of 1 would carry into bit 1
    assert swizzle_split(0x1, 1, 0x0, 0, 1, 128, 128) is None
    # a transposed fp8 V read (row = key = 2q + 8j + b, column = d = row base + 8h): applies
    assert swizzle_split(COL, 8 * 3 + 1, ROW2, 8, 1, 128, 128) is not None


def test_blocks_of_fewer_rows_than_the_pattern():
    """A column block starts where the previous one ends: with 8 rows or more that is a multiple
    of the swizzle pattern (the in-block offset swizzled, plus the block's), with fewer rows it
    is inside the pattern, whose lines are the hardware's (it swizzles by address): a 1 x 64 f32
    row in two 128-byte blocks has its second block's 16-byte chunks swapped in pairs. The
    split declines such blocks (the emitter computes them with smem_offset's arithmetic)."""
    from wsdialects.layout import swizzled

    for row in range(64):  # 64 x 128 f16 in two blocks of 8192 bytes: unchanged by the order
        for col in range(128):
            blk, c = divmod(col * 2, 128)
            assert smem_offset(row, col, 2, 128, 128, 8192) == swizzled(row * 128 + c, 128) + blk * 8192
    for col in range(64):
        blk, c = divmod(col * 4, 128)
        chunk = c // 16 ^ blk  # block 1 is line 1 of the pattern
        assert smem_offset(0, col, 4, 128, 128, 128) == blk * 128 + chunk * 16 + c % 16
    assert swizzle_split(0, 0, COL, 0, 4, 128, 128, 128) is None
