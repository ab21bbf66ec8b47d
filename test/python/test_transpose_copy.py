"""`#layout.transpose_copy` (the 8-bit transposing copy of an fp8 V with ldmatrix.trans /
stmatrix, wsdialects/lower/llvm/transpose_copy.py): every element once; a bit-exact model of
what the emitter writes (PTX ISA semantics of ldmatrix.m8n8.x4.trans.b16, prmt and
stmatrix.m8n8.x4.b16, the lanes' row addresses and selectors from the emitter's own
functions) lands a 128-B-swizzled V slot transposed in V^T's slot; the shared-memory
wavefronts per 128 x 128 tile (no bank conflicts: 256, against the 32-bit block copy's 768);
ws-lower-layouts' choice; the PTX the producer runs and ptxas without spills at 56."""

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import wsdialects
from test_operand_a8_exchange import prmt
from wsdialects.layout import (TransposeCopyLayout, blocked_base, blocked_for, blocked_offsets, interleaved,
                               smem_offset)
from wsdialects.lower.llvm.shared_tiles import SharedTiles
from wsdialects.lower.llvm.transpose_copy import (element, ld_lane, selectors, st_lane, transpose_copy_for, units,
                                                  warp_base)

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
SWZ = 128


@pytest.mark.parametrize("rows,cols,warps", [(128, 128, 4), (128, 128, 8), (64, 128, 4), (128, 64, 8), (32, 16, 1)])
def test_every_element_once(rows, cols, warps):
    lay = transpose_copy_for(rows, cols, warps)
    assert lay is not None
    w = lay.warp_dims()
    assert w[0] * w[1] == warps
    n = len(units(rows, cols, w)) * 16
    seen = {}
    for tid in range(32 * warps):
        for s in range(n):
            at = element(tid, s, rows, cols, w)
            assert 0 <= at[0] < rows and 0 <= at[1] < cols and at not in seen, (tid, s, at)
            seen[at] = (tid, s)
    assert len(seen) == rows * cols


def test_no_fit_and_parse():
    assert transpose_copy_for(100, 128, 4) is None and transpose_copy_for(128, 40, 4) is None
    text = 'func.func @f(%a: tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 4]>>) {\n  func.return\n}\n'
    assert "#layout.transpose_copy<warps = [1, 4]>" in str(wsdialects.parse(text))
    with pytest.raises(Exception, match="two powers of two"):
        TransposeCopyLayout((3, 1)).verify()


# ---- the warp-level instructions, as the PTX ISA defines them (addresses are byte offsets)

def ldmatrix_x4_trans(mem, addrs):
    """Lane 8m + r gives the address of row r of matrix m (16 bytes, 8 b16); with .trans lane
    4c + q receives, in register m, the b16 elements (row 2q, column c) and (row 2q + 1,
    column c) of matrix m, low half first."""
    out = [[0] * 4 for _ in range(32)]
    for lane in range(32):
        c, q = lane >> 2, lane & 3
        for m in range(4):
            lo, hi = (addrs[8 * m + 2 * q + i] + 2 * c for i in (0, 1))
            out[lane][m] = int(mem[lo]) | int(mem[lo + 1]) << 8 | int(mem[hi]) << 16 | int(mem[hi + 1]) << 24
    return out


def stmatrix_x4(mem, addrs, regs):
    """Lane 8j + r gives the address of row r of matrix j; lane 4c + q's register j is row c,
    b16 columns 2q, 2q + 1 (bytes 4q .. 4q + 3 of the row)."""
    for lane in range(32):
        c, q = lane >> 2, lane & 3
        for j in range(4):
            a = addrs[8 * j + c] + 4 * q
            mem[a:a + 4] = np.frombuffer(regs[lane][j].to_bytes(4, "little"), np.uint8)


def wavefronts(accesses):
    """Shared-memory wavefronts of one request: `accesses` are (byte address, bytes) served
    together; 32 banks of 4 bytes, a bank serves one 4-byte word per wavefront (the same word
    to several lanes at once)."""
    per_bank = {}
    for a, n in accesses:
        for w in range(a // 4, (a + n + 3) // 4):
            per_bank.setdefault(w % 32, set()).add(w)
    return max(len(s) for s in per_bank.values())


def copy_model(v, warps, sel=selectors, interleave=0):
    """The emitter's transposing copy over `warps` warps: V (keys x d) stored as TMA writes it
    (128-B swizzle), V^T (d x keys) stored as a slot. Returns V^T's slot and the wavefronts."""
    n_k, n_d = v.shape
    src = np.zeros(v.size, np.uint8)
    for k in range(n_k):
        for d in range(n_d):
            src[smem_offset(k, d, 1, n_d, SWZ)] = v[k, d]
    dst = np.zeros(v.size, np.uint8)
    rows, cols = n_d, n_k  # the copied tile is V^T
    lay = transpose_copy_for(rows, cols, warps)
    w = lay.warp_dims()
    waves = 0
    ldl = lambda lane: ld_lane(lane, interleave)  # noqa: E731
    for warp in range(warps):
        br, bc = warp_base(warp, w)
        for ro, co in units(rows, cols, w):
            # ldmatrix: lane l's row = V^T element (row, col) read along dim 0: V[col][row ...]
            la = [smem_offset(bc + co + ldl(la)[1], br + ro + ldl(la)[0], 1, n_d, SWZ) for la in range(32)]
            regs = ldmatrix_x4_trans(src, la)
            waves += sum(wavefronts([(a, 16) for a in la[8 * m:8 * m + 8]]) for m in range(4))
            words = []
            for lane in range(32):
                sa, sb = sel(lane, interleave) if sel is selectors else sel(lane)
                r = regs[lane]
                words.append([prmt(r[2 * p], r[2 * p + 1], s) for p in (0, 1) for s in (sa, sb)])
                # the words hold what #layout.transpose_copy says register 4 j + k of the unit holds
                tid = 32 * warp + lane
                u = units(rows, cols, w).index((ro, co))
                for j in range(4):
                    for k in range(4):
                        er, ec = element(tid, 16 * u + 4 * j + k, rows, cols, w, interleave)
                        assert (words[lane][j] >> (8 * k)) & 0xFF == v[ec, er]
            sa_ = [smem_offset(br + ro + st_lane(la)[0], bc + co + st_lane(la)[1], 1, n_k, SWZ) for la in range(32)]
            stmatrix_x4(dst, sa_, words)
            waves += sum(wavefronts([(a, 16) for a in sa_[8 * j:8 * j + 8]]) for j in range(4))
    return dst, waves


def read_vt(dst, n_d, n_k, interleave=0):
    """V^T as stored: position p of a row holds key p, or key `interleaved`(p)."""
    out = np.zeros((n_d, n_k), np.uint8)
    for d in range(n_d):
        for p in range(n_k):
            out[d, interleaved(p) if interleave else p] = dst[smem_offset(d, p, 1, n_k, SWZ)]
    return out


@pytest.mark.parametrize("interleave", [0, 8])
@pytest.mark.parametrize("warps", [4, 8])
def test_model_lands_v_transposed_without_bank_conflicts(warps, interleave):
    v = np.random.default_rng(warps).integers(0, 256, (128, 128)).astype(np.uint8)
    dst, waves = copy_model(v, warps, interleave=interleave)
    assert (read_vt(dst, 128, 128, interleave) == v.T).all()
    if interleave:  # stored in FlashAttention-3's order, not the natural one
        assert not (read_vt(dst, 128, 128) == v.T).all()
    # 32 ldmatrix.x4 and 32 stmatrix.x4 per tile, each 4 x 128 bytes: 4 wavefronts, the least
    assert waves == 256


def test_model_fails_with_plain_selectors():
    """The per-lane selectors matter: FlashAttention-3's fixed 0x6420 / 0x7531 with these row
    addresses scrambles the keys (a model that cannot fail would not show it)."""
    v = np.random.default_rng(1).integers(0, 256, (128, 128)).astype(np.uint8)
    with pytest.raises(AssertionError):
        copy_model(v, 4, sel=lambda lane: (0x6420, 0x7531))


def test_block_copy_wavefronts():
    """The 32-bit copy of #layout.blocked (what the fp8 V copy was; still the fallback): per
    128 x 128 tile 256 wavefronts of loads (2-way conflicts) and 512 of stores (4-way) under
    the 128-B swizzle, 768 in all, three times the matrix copy's."""
    n, warps = 128, 4
    lay = blocked_for(n, n, warps)
    lanes, wd = lay.lane_dims(), lay.warp_dims()
    offs = blocked_offsets(n, n, lanes, wd)
    loads = stores = 0
    for warp in range(warps):
        per_lane_ld, per_lane_st = [], []
        for lane in range(32):
            r0, c0 = blocked_base(32 * warp + lane, lanes, wd)
            idxs = [(r0 + dr, c0 + dc) for dr, dc in offs]  # (d, key) of V^T
            per_lane_ld.append([smem_offset(idxs[g[0]][1], idxs[g[0]][0], 1, n, SWZ)
                                for g in SharedTiles.blocked_words(None, SimpleNamespace(trans=True), idxs)])
            per_lane_st.append([smem_offset(*idxs[g[0]], 1, n, SWZ)
                                for g in SharedTiles.blocked_words(None, SimpleNamespace(trans=False), idxs)])
        for i in range(len(per_lane_ld[0])):  # one warp instruction per word
            loads += wavefronts([(per_lane_ld[la][i], 4) for la in range(32)])
            stores += wavefronts([(per_lane_st[la][i], 4) for la in range(32)])
    assert (loads, stores) == (256, 512)


@pytest.mark.parametrize("name", ["flash_attention_fp8", "flash_attention_fp8_causal"])
def test_producer_ptx_and_ptxas(name):
    """The producer's copy in PTX: 8 ldmatrix.x4.trans and 8 stmatrix.x4 per tile (a 128 x 128
    tile over 4 warps: 8 units a warp), in the loop and after it, 4 prmt per unit with
    register selectors, no 32-bit shared loads left in the copy; ptxas: no spills at the
    producer's 56 registers."""
    from kernel_cache import compile_ptx, run_ptxas

    ptx = compile_ptx(str(KERNELS / f"{name}.mlir"), "ws-hopper{v-transpose=producer}")
    assert ptx.count("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == 16
    assert ptx.count("stmatrix.sync.aligned.m8n8.x4.shared.b16") == 16
    body = ptx[ptx.index("ldmatrix"):ptx.rindex("stmatrix")]
    assert "ld.shared.b32" not in body and "st.shared.b32" not in body
    assert body.count("prmt.b32") == 4 * 16
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    rc, report = run_ptxas(ptx, ptxas)  # ptxas -arch=sm_90a -v, once per PTX text in the test run
    assert rc == 0, report
    assert "C7508" not in report and "0 bytes spill stores" in report, report
    assert "setmaxnreg.dec.sync.aligned.u32 56;" in ptx


def test_layout_that_does_not_fit_is_a_located_error(tmp_path):
    """Hand-written IR whose #layout.transpose_copy names more warps than the branch has: a
    located error and exit 1 from ws-opt, no traceback, no LLVM IR."""
    from kernel_cache import compile_kernel

    lowered = str(compile_kernel(KERNELS / "flash_attention_fp8.mlir", "ws-hopper{v-transpose=producer}",
                                 shared=True)) + "\n"  # what ws-opt -p prints
    bad = lowered.replace("#layout.transpose_copy<warps = [1, 4], interleave = 8>",
                          "#layout.transpose_copy<warps = [1, 8], interleave = 8>")
    assert bad != lowered
    f = tmp_path / "bad.mlir"
    f.write_text(bad)
    r = subprocess.run(["ws-opt", str(f), "-t", "llvm"], capture_output=True, text=True)
    assert r.returncode == 1 and not r.stdout
    assert f"{f}:" in r.stderr and "error: nvgpu.smem.load: #layout.transpose_copy<warps = [1, 8], interleave = 8> does not fit a " \
        "128x128 tile in a branch of 4 warps" in r.stderr and "Traceback" not in r.stderr, r.stderr
