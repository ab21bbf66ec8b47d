"""The bits a thread's accumulator-fragment base may set (acc_fragment_base: row 64 wg + 16 w +
lane / 4, column 2 (lane % 4), the 8-bit A fragment's 4 (lane % 4)), for one and two warp groups:
the shared-address lowering (wsdialects/lower/llvm/shared_address.py) splits every element's
address into the thread's base, an xor of the chunk bits and a constant on the strength of them."""

from wsdialects.layout import acc_fragment_base

ROW1, ROW2, COL, COL4 = 0x37, 0x77, 0x6, 0xC


def test_masks_cover_the_fragment_bases():
    for tid in range(256):
        r, c = acc_fragment_base(tid)
        assert r & ~ROW2 == 0 and c & ~COL == 0 and (2 * c) & ~COL4 == 0
        if tid < 128:
            assert r & ~ROW1 == 0
