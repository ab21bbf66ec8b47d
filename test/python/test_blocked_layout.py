"""`#layout.blocked` (4 x 4 blocks per thread; the layout ws-lower-layouts gives an 8-bit tile
copied from one shared-memory layout to another, ws-stage-operands' transposed fp8 V): every
element of the tile is held by exactly one thread of the branch, a thread's registers
16 b + 4 i + j are element (i, j) of its b-th block, `blocked_for` picks a layout that fits,
and the layout prints and parses."""

import pytest

import wsdialects
from wsdialects.layout import BlockedLayout, blocked_base, blocked_for, blocked_offsets


@pytest.mark.parametrize("rows,cols,warps", [(128, 128, 8), (128, 128, 4), (64, 128, 4), (128, 64, 8)])
def test_every_element_once(rows, cols, warps):
    lay = blocked_for(rows, cols, warps)
    assert lay is not None
    lanes, wd = lay.lane_dims(), lay.warp_dims()
    assert wd[0] * wd[1] == warps
    offs = blocked_offsets(rows, cols, lanes, wd)
    seen = {}
    for tid in range(32 * warps):
        r0, c0 = blocked_base(tid, lanes, wd)
        for s, (dr, dc) in enumerate(offs):
            at = (r0 + dr, c0 + dc)
            assert at not in seen, (tid, s, at, seen.get(at))
            seen[at] = (tid, s)
        for s in range(0, len(offs), 16):  # a block: 4 x 4 elements side by side
            block = [(r0 + offs[s + k][0], c0 + offs[s + k][1]) for k in range(16)]
            assert block == [(block[0][0] + i, block[0][1] + j) for i in range(4) for j in range(4)]
    assert len(seen) == rows * cols


def test_no_fit():
    assert blocked_for(100, 128, 8) is None and blocked_for(128, 48, 8) is None


def test_prints_and_parses():
    text = ('func.func @f(%a: tensor<128x128xf8E4M3FN, #layout.blocked<lanes = [8, 4], warps = [4, 2]>>) {\n'
            '  func.return\n}\n')
    m = wsdialects.parse(text)
    assert "#layout.blocked<lanes = [8, 4], warps = [4, 2]>" in str(m)
    with pytest.raises(Exception, match="product is 32"):
        BlockedLayout((8, 8), (1, 1)).verify()


def test_transposing_copy_model():
    """The emitter's block copy (SharedTiles.blocked_words grouping, 32-bit loads of the
    slot, three prmt per stored word: prmt(a, b, ka | (4 + kb) << 4), the same for c and d,
    then prmt(lo, hi, 0x5410)) modelled over 256 threads: a 128 x 128 byte V slot (128-B
    swizzle) lands transposed in the buffer."""
    import numpy as np
    from types import SimpleNamespace

    from test_operand_a8_exchange import prmt
    from wsdialects.layout import smem_offset
    from wsdialects.lower.llvm.shared_tiles import SharedTiles

    n = 128
    v = np.random.default_rng(0).integers(0, 256, (n, n)).astype(np.uint8)  # V[key, d]
    slot = np.zeros(n * n, np.uint8)
    for key in range(n):
        for d in range(n):
            slot[smem_offset(key, d, 1, 128, 128)] = v[key, d]
    buf = np.zeros(n * n, np.uint8)
    lay = blocked_for(n, n, 8)
    lanes, warps = lay.lane_dims(), lay.warp_dims()
    offs = blocked_offsets(n, n, lanes, warps)
    word = lambda mem, off: int.from_bytes(mem[off:off + 4].tobytes(), "little")  # noqa: E731
    for tid in range(256):
        r0, c0 = blocked_base(tid, lanes, warps)
        idxs = [(r0 + dr, c0 + dc) for dr, dc in offs]  # elements (d, key) of V^T
        src = {}
        for g in SharedTiles.blocked_words(None, SimpleNamespace(trans=True), idxs):  # the slot: V^T's transpose
            d0, key = idxs[g[0]]
            w = word(slot, smem_offset(key, d0, 1, 128, 128))
            for k, s in enumerate(g):
                src[s] = (w, k)
        for g in SharedTiles.blocked_words(None, SimpleNamespace(trans=False), idxs):
            (a, ka), (b, kb), (c, kc), (d, kd) = (src[s] for s in g)
            w = prmt(prmt(a, b, ka | (4 + kb) << 4), prmt(c, d, kc | (4 + kd) << 4), 0x5410)
            row, col = idxs[g[0]]
            off = smem_offset(row, col, 1, 128, 128)
            buf[off:off + 4] = np.frombuffer(w.to_bytes(4, "little"), np.uint8)
    got = np.array([[buf[smem_offset(d, key, 1, 128, 128)] for key in range(n)] for d in range(n)])
    assert (got == v.T).all()
