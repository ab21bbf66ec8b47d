"""The bits a thread's accumulator-fragment base may set (fragments.ACC_ROW_BITS, ACC_COL_BITS,
A8_COL_BITS: what the emitter's `known_bits` holds for the bases), checked against
acc_fragment_base for one and two warp groups: the shared-address lowering
(wsdialects/lower/llvm/shared_address.py) splits every element's address into the thread's
base, an xor of the chunk bits and a constant on the strength of them."""

from wsdialects.fragments import A8_COL_BITS, ACC_COL_BITS, ACC_ROW_BITS, acc_fragment_base
from wsdialects.lower.llvm.shared_address import bits_below


def test_masks_cover_the_fragment_bases():
    for tid in range(256):
        r, c = acc_fragment_base(tid)
        wg_bits = bits_below(tid // 128 + 1) << 6  # the second warp group's row 64
        assert r & ~(ACC_ROW_BITS | wg_bits) == 0 and c & ~ACC_COL_BITS == 0 and (2 * c) & ~A8_COL_BITS == 0


def test_bits_below():
    for n in range(1, 70):
        mask = bits_below(n)
        assert all(v & ~mask == 0 for v in range(n)) and (n == 1 or mask < 2 * (n - 1) + 1)
