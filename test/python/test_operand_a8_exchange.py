"""The conversion of an 8-bit tile from the wgmma accumulator fragment into wgmma's 8-bit A
fragment (`nvgpu.convert_layout` to `#layout.operand_a`), checked as a model of what the
emitter writes (wsdialects/lower/llvm/wgmma.py, `ev_convert_layout`): 32 lanes, each holding
its accumulator bytes at `acc_fragment_offsets` from `acc_fragment_base`, pack X_0 / X_1, do
the two `shfl.sync.idx` rounds (lane 2 (q % 2) + ((q / 2) ^ r) of the quad, the sender picking
X_((s % 2) ^ r)) and the two `prmt` (0x5410, 0x7632); every lane must end with the bytes that
`operand_a8_offsets` says it holds, from column base 4 (lane % 4). And the A fragment is the
PTX ISA's m64nNk32 8-bit one: register j of a k-block holds row g + 8 (j % 2), columns
4 t + 16 (j / 2) + 0..3 (g = lane / 4, t = lane % 4)."""

import numpy as np
import pytest

from wsdialects.layout import acc_fragment_base, acc_fragment_offsets, operand_a8_offsets


def prmt(a: int, b: int, sel: int) -> int:
    """PTX prmt.b32 (default mode): byte k of the result is byte (sel >> 4k) & 7 of {b, a}."""
    src = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    return sum(src[(sel >> (4 * k)) & 7] << (8 * k) for k in range(4))


@pytest.mark.parametrize("rows,cols", [(64, 32), (64, 128), (128, 64)])
def test_exchange_lands_in_operand_a(rows, cols):
    G = 1
    tile = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols) % 251  # distinct bytes per quad row
    acc_offs = acc_fragment_offsets(rows, cols, G)
    warps = 4
    words = {}
    for warp in range(warps):
        lanes = range(32 * warp, 32 * warp + 32)
        held = {}
        for tid in lanes:
            r0, c0 = acc_fragment_base(tid)
            held[tid] = [int(tile[r0 + dr, c0 + dc]) for dr, dc in acc_offs]
        per_rep = cols // 2
        for tid in lanes:
            words[tid] = []
        for rep in range(rows // 64):
            for kb in range(cols // 32):
                got = {tid: {} for tid in lanes}
                for h in range(2):
                    X = {}
                    for tid in lanes:
                        regs = held[tid]
                        u = [regs[rep * per_rep + 4 * (4 * kb + j) + 2 * h] |
                             regs[rep * per_rep + 4 * (4 * kb + j) + 2 * h + 1] << 8 for j in range(4)]
                        X[tid] = [u[0] | u[2] << 16, u[1] | u[3] << 16]
                    Y = {tid: [] for tid in lanes}
                    for r in range(2):
                        send = {tid: X[tid][((tid % 32 % 4) & 1) ^ r] for tid in lanes}
                        for tid in lanes:
                            q = tid % 4
                            src = (tid & ~3) | (2 * (q & 1) + ((q >> 1) ^ r))
                            Y[tid].append(send[src])
                    for tid in lanes:
                        high = (tid % 4) >> 1
                        ys0, ys1 = (Y[tid][1], Y[tid][0]) if high else (Y[tid][0], Y[tid][1])
                        got[tid][h] = (prmt(ys0, ys1, 0x5410), prmt(ys0, ys1, 0x7632))
                for tid in lanes:
                    g = got[tid]
                    words[tid] += [g[0][0], g[1][0], g[0][1], g[1][1]]
    a_offs = operand_a8_offsets(rows, cols, G)
    for tid, ws in words.items():
        r0, _ = acc_fragment_base(tid)
        c0 = 4 * (tid % 4)
        bytes_ = [(ws[s // 4] >> (8 * (s % 4))) & 0xFF for s in range(len(a_offs))]
        want = [int(tile[r0 + dr, c0 + dc]) for dr, dc in a_offs]
        assert bytes_ == want, tid


def test_operand_a8_is_the_isa_fragment():
    """Per row block and k-block: register j, byte b of lane l (warp w) is row 16 w + l / 4 +
    8 (j % 2), column 4 (l % 4) + 16 (j / 2) + b (PTX ISA, wgmma .m64nNk32 A for .e4m3)."""
    offs = operand_a8_offsets(64, 64, 1)
    for tid in range(128):
        r0, _ = acc_fragment_base(tid)
        lane, warp = tid % 32, tid // 32
        for s, (dr, dc) in enumerate(offs):
            kb, j, b = s // 16, (s // 4) % 4, s % 4
            assert r0 + dr == 16 * warp + lane // 4 + 8 * (j % 2)
            assert 4 * (lane % 4) + dc == 32 * kb + 4 * (lane % 4) + 16 * (j // 2) + b


def test_acc_and_operand_a8_cover_the_same_elements():
    """A conversion moves bytes inside quads only: per quad (four lanes, two rows), the
    accumulator and the A fragment hold the same elements."""
    for rows, cols, G in ((64, 128, 1), (128, 64, 2)):
        acc = acc_fragment_offsets(rows, cols, G)
        a8 = operand_a8_offsets(rows, cols, G)
        for quad in range(0, 128 * G, 4):
            A = {(acc_fragment_base(t)[0] + dr, acc_fragment_base(t)[1] + dc) for t in range(quad, quad + 4)
                 for dr, dc in acc}
            B = {(acc_fragment_base(t)[0] + dr, 4 * (t % 4) + dc) for t in range(quad, quad + 4) for dr, dc in a8}
            assert A == B
