"""ws-exp2-split: the polynomial exp2 (numpy model of the emitted instructions) against
numpy's exp2 within its stated error bound; kernels interpreted before and after the pass
on fresh random inputs: an exp2 tile stored as f32 (marked columns within the bound, the
others bit for bit equal), and bf16 attention within the bound the polynomial and P's bf16
rounding allow; the emitted LLVM of a marked tile; a malformed mark is a located error."""

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from cases import INPUTS, cdiv
from kernel_cache import compile_kernel
from wsdialects.lower.to_llvm import lower_module
from wsdialects.transforms.exp2_split import BLOCK, COEFFS, REL_ERROR, exp2_fma_model, spread

TINY = 2.0 ** -126  # below 2^-126 the SFU flushes to 0 and the polynomial gives a subnormal
KERNELS = INPUTS.parents[2] / "examples" / "kernels"


@pytest.mark.parametrize("degree", sorted(COEFFS))
def test_model_within_bound(degree, rng):
    x = np.concatenate([np.linspace(-140, 140, 1_000_001), rng.uniform(-30, 5, 100_000)]).astype(np.float32)
    want = np.exp2(x.astype(np.float64))
    got = exp2_fma_model(x, degree).astype(np.float64)
    normal = (x > -126) & (x < 128)
    rel = np.abs(got[normal] / want[normal] - 1)
    assert rel.max() <= REL_ERROR[degree]
    assert rel.max() > REL_ERROR[degree] / 4  # the bound is tight, not a guess far above
    low = x <= -126
    assert np.all(np.abs(got[low] - want[low]) <= TINY)
    assert np.all(got[x <= -127] == 0) and np.all(np.isposinf(got[x >= 128]))
    # the clamps: exact 0 and inf; NaN reads as the lower clamp (PTX max returns the number)
    special = exp2_fma_model(np.float32([-np.inf, np.inf, np.nan, 0.0, 1.0, -1.0]), degree)
    assert list(special) == [0.0, np.inf, 0.0, 1.0, 2.0, 0.5]


def test_spread():
    assert spread(16, 4) == [3, 7, 11, 15]
    assert spread(16, 0) == [] and spread(16, 16) == list(range(16))
    assert all(len(spread(n, k)) == k for n in (1, 16, 22) for k in range(n + 1))


def _exp2_gemm(module, a, b, K, scale):
    c = np.full((a.shape[0], b.shape[0]), np.nan, np.float32)
    wsdialects.interpret(module, "exp2_gemm", (cdiv(a.shape[0], 128), cdiv(b.shape[0], 128)), [a, b, c, K, scale])
    return c


@pytest.mark.parametrize("degree", sorted(COEFFS))
def test_exp2_tile_before_and_after(degree, rng):
    """Scores spread far past -127 and 128 (the clamps): marked columns within the bound
    of numpy's exp2, the other columns unchanged, and the marked ones really differ."""
    M, N, K = 200, 136, 100
    a, b = (rng.standard_normal((n, K)).astype(np.float16) for n in (M, N))
    scale = 8.0  # scores of about 80 x N(0, 1): both clamps are reached
    path = INPUTS / "exp2_gemm.mlir"
    before = compile_kernel(path, "ws-hopper{auto=false}", shared=True)
    after = compile_kernel(path, f"ws-hopper{{auto=false}},ws-exp2-split{{fma-fraction=0.5 degree={degree}}}",
                           shared=True)
    want, got = (_exp2_gemm(m, a, b, K, scale).astype(np.float64) for m in (before, after))
    marked = np.zeros(N, bool)
    for blk in spread(128 // BLOCK, 128 // BLOCK // 2):
        marked[[c for c in range(N) if (c % 128) // BLOCK == blk]] = True
    assert np.array_equal(got[:, ~marked], want[:, ~marked])
    w, g = want[:, marked], got[:, marked]
    assert np.array_equal(np.isposinf(w), np.isposinf(g)) and np.isposinf(w).any() and (w == 0).any()
    fin = np.isfinite(w)
    assert np.all(np.abs(g[fin] - w[fin]) <= REL_ERROR[degree] * w[fin] + TINY)
    assert not np.array_equal(g, w)


def _attention(module, name, q, k, v, L):
    o = np.full(q.shape, np.nan, q.dtype)
    wsdialects.interpret(module, name, grid=(cdiv(L, 128), q.shape[0]),
                         args=[q, k, v, o, L, float(1 / np.sqrt(q.shape[-1]))], seed=5)
    return o.astype(np.float64)


@pytest.mark.parametrize("name,dt,causal", [("flash_attention_bf16", ml_dtypes.bfloat16, False),
                                            ("flash_attention_causal", np.float16, True)])
def test_attention_before_and_after(name, dt, causal, rng):
    """Attention, half of P's columns by polynomial: each output within the bound that P's
    relative error (the polynomial's, plus one step of P's 16-bit type where its rounding
    flips) and O's own rounding allow: |dO| <= (step + 2 e) (P |V|)[i, d] / l_i + step |O|."""
    L, BH, D = 200, 2, 128
    q, k, v = (rng.standard_normal((BH, L, D)).astype(dt) for _ in range(3))
    pipe = "ws-hopper{auto=false cooperative=2 pingpong=true}"
    path = KERNELS / f"{name}.mlir"
    before = compile_kernel(path, pipe, shared=True)
    after = compile_kernel(path, f"{pipe},ws-exp2-split{{fma-fraction=0.5}}", shared=True)
    assert sum("ws.exp2_fma" in o.attributes for o in after.walk()) >= 2  # both groups' exponentials
    o0, o1 = _attention(before, name, q, k, v, L), _attention(after, name, q, k, v, L)
    assert not np.isnan(o1).any()
    s = np.einsum("bld,bmd->blm", q.astype(np.float64), k.astype(np.float64)) / np.sqrt(D)
    if causal:
        s = np.where(np.tril(np.ones((L, L), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    pv = (p / p.sum(-1, keepdims=True)) @ np.abs(v.astype(np.float64))
    step = 2.0 ** -(ml_dtypes.finfo(dt).nmant)
    bound = (step + 2 * REL_ERROR[3]) * pv + step * np.abs(o0)
    assert np.all(np.abs(o1 - o0) <= 1.01 * bound + 1e-6)
    assert not np.array_equal(o0, o1)


def test_emitted_llvm():
    """Marked blocks: the clamp, add.rm, the Horner FMAs, shl 23, add; the rest ex2."""
    m = compile_kernel(INPUTS / "exp2_gemm.mlir", "ws-hopper{auto=false},ws-exp2-split{fma-fraction=0.25 degree=4}")
    ir = lower_module(m).llvm_ir
    # 128 rows x 128 columns in one warp group: 2 row halves x 4 marked blocks x 4 registers
    assert ir.count("add.rm.f32") == 32 and ir.count("ex2.approx.ftz.f32") == 96
    assert ir.count("call float @llvm.fma.f32") == 32 * 4 and ir.count(", 23\n") >= 32


def test_malformed_mark_is_located():
    m = compile_kernel(INPUTS / "exp2_gemm.mlir", "ws-hopper{auto=false},ws-exp2-split{fma-fraction=0.25}")
    text = str(m).replace("blocks = array<i32: 3, 7, 11, 15>", "blocks = array<i32: 3, 16>")
    bad = wsdialects.parse(text)
    with pytest.raises(wsdialects.WsError, match=r"ws.exp2_fma': block 16 outside the 16 blocks of 8 columns"):
        lower_module(bad)
    text = str(m).replace("degree = 3 : i32", "degree = 9 : i32")
    with pytest.raises(wsdialects.WsError, match=r"degree = 3, 4 or 5"):
        lower_module(wsdialects.parse(text))


def test_bench_variants_dry_run(capsys, monkeypatch):
    """bench/attention.py compiles a tagged variant (the 176-key kernel of test/Inputs/kernels)
    with the split, and says n/a, not FAILED, for the rows that have no such kernel (its main in
    this process, as test_attention_bwd_kernels runs bench/attention_bwd.py's: no interpreter
    start and imports of its own)."""
    import sys

    from bench_scripts import load

    v = "bn176:ws-hopper{cooperative=2 pingpong=true},ws-exp2-split{fma-fraction=0.25}"
    bench = load("attention", monkeypatch)
    monkeypatch.setattr(sys, "argv", ["attention.py", "--dry-run", "--dtypes", "bf16", "--dims", "128", "--causal", "0,1",
                                      "--variants", v])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        bench.main()
    r = capsys.readouterr()
    assert exit_.value.code == 0, r.out + r.err
    assert f"('bf16', 128, False) {v}: ok" in r.out and f"('bf16', 128, True) {v}: n/a" in r.out
    assert "6 of 22 column blocks of 64x176" in r.err  # a quarter of the 176-key tile, rounded to blocks
