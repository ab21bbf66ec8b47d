"""The FP8 attention kernels of examples/kernels (flash_attention_fp8, _causal: V [B*H, L, d];
flash_attention_fp8_vt: V^T [B*H, d, L]; e4m3 Q, K, V, q/k/v descales, O bf16 or f16) through
the interpreter, as written and after ws-hopper (the ping-pong team attention_forward uses,
cooperative, persistent), on fresh random inputs with ragged L and NaN-poisoned outputs.

Two references: the kernel's own algorithm in numpy (blocks of 128 keys, online softmax in
f32, P rounded to e4m3 before P·V, the descales folded as the kernel folds them), which the
result must match to the output's rounding; and float64 softmax attention of the dequantized
inputs, which it must match to what e4m3 P costs (a few percent)."""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, parse_kernel

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
E4M3 = ml_dtypes.float8_e4m3fn
D = 128
VARIANTS = [("flash_attention_fp8", False, False), ("flash_attention_fp8_causal", True, False),
            ("flash_attention_fp8_vt", False, True)]  # (kernel, causal, V given transposed)


def kernel_file(name: str, out_dtype, tmp_path: Path) -> Path:
    path = KERNELS / f"{name}.mlir"
    if out_dtype is np.float16:  # the same kernel with an f16 O
        path2 = tmp_path / f"{name}_f16.mlir"
        path2.write_text(path.read_text().replace("xbf16>", "xf16>"))
        return path2
    return path


def inputs(rng, BH, L, per_head):
    q, k, v = ((rng.standard_normal((BH, L, D)) * s).astype(E4M3) for s in (1.0, 1.0, 2.0))
    if per_head:
        qd, kd, vd = (rng.uniform(0.2, 2.0, BH).astype(np.float32) for _ in range(3))
    else:
        qd, kd, vd = (np.array([x], np.float32) for x in rng.uniform(0.2, 2.0, 3))
    return q, k, v, qd, kd, vd


def allowed(L, causal, window=None):
    """[L, L] bool: which keys (columns) each query (row) attends."""
    m, n = np.arange(L)[:, None], np.arange(L)[None, :]
    ok = (n <= m) if causal or window else np.ones((L, L), bool)
    return ok & (n > m - window) if window else ok


def modelled(q, k, v, qd, kd, vd, causal, sm_scale, window=None):
    """The kernel's algorithm: per block of 128 keys, f32 scores of the e4m3 inputs, the
    running max, P = exp2(s * scale - m) rounded to e4m3 for P·V (l sums P unrounded), then
    O = acc * v_descale / l."""
    BH, L, _ = q.shape
    f = np.float32
    scale = f(f(f(sm_scale) * f(1.44269504)) * qd[:, None, None]) * kd[:, None, None]
    mask = allowed(L, causal, window)
    m = np.full((BH, L, 1), -np.inf, f)
    l = np.zeros((BH, L, 1), f)
    acc = np.zeros((BH, L, D), f)
    for j0 in range(0, L, 128):
        kb, vb = k[:, j0:j0 + 128].astype(f), v[:, j0:j0 + 128].astype(f)
        s = np.einsum("bld,bmd->blm", q.astype(f), kb)
        s = np.where(mask[None, :, j0:j0 + 128], s, -np.inf)
        m_new = np.maximum(m, s.max(-1, keepdims=True) * scale)
        with np.errstate(invalid="ignore"):
            p = np.exp2(s * scale - m_new).astype(f)
            alpha = np.exp2(m - m_new).astype(f)
        p = np.nan_to_num(p)
        alpha = np.nan_to_num(alpha, nan=1.0)
        l = l * alpha + p.sum(-1, keepdims=True)
        acc = acc * alpha + np.einsum("blm,bmd->bld", p.astype(E4M3).astype(f), vb)
        m = m_new
    return acc * (vd[:, None, None] / l)


def dequantized(q, k, v, qd, kd, vd, causal, sm_scale, window=None):
    qf, kf, vf = (x.astype(np.float64) * d[:, None, None] for x, d in ((q, qd), (k, kd), (v, vd)))
    s = np.einsum("bld,bmd->blm", qf, kf) * sm_scale
    s = np.where(allowed(s.shape[1], causal, window)[None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ vf


def run(module, name, causal, vt, L, rng, out_dtype=ml_dtypes.bfloat16, BH=2, per_head=True, seed=None):
    q, k, v, qd, kd, vd = inputs(rng, BH, L, per_head)
    o = np.full((BH, L, D), np.nan, out_dtype)
    v_in = np.ascontiguousarray(v.transpose(0, 2, 1)) if vt else v
    sm_scale = float(1 / np.sqrt(D))
    wsdialects.interpret(module, name, grid=(-(-L // 128), BH),
                         args=[q, k, v_in, o, qd, kd, vd, 1 if per_head else 0, L, sm_scale], seed=seed)
    got = o.astype(np.float64)
    assert not np.isnan(got).any(), "an output element was not written"
    want = modelled(q, k, v, qd if per_head else np.repeat(qd, BH), kd if per_head else np.repeat(kd, BH),
                    vd if per_head else np.repeat(vd, BH), causal, sm_scale)
    exact = dequantized(q, k, v, *(x if per_head else np.repeat(x, BH) for x in (qd, kd, vd)), causal, sm_scale)
    rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)  # noqa: E731
    return rel(got, want), rel(got, exact)


@pytest.mark.parametrize("name,causal,vt", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("L", [1, 100, 257])
def test_kernel_as_written(name, causal, vt, L, rng):
    m = parse_kernel(KERNELS / f"{name}.mlir", shared=True)
    err_model, err_exact = run(m, name, causal, vt, L, rng)
    assert err_model < 1e-2, err_model  # bf16 O
    assert err_exact < 6e-2, err_exact  # e4m3 P


@pytest.mark.parametrize("per_head", [True, False], ids=["per-head", "per-tensor"])
@pytest.mark.parametrize("out", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_descales_and_output_types(per_head, out, rng, tmp_path):
    name = "flash_attention_fp8"
    m = parse_kernel(kernel_file(name, out, tmp_path))
    err_model, _ = run(m, name, False, False, 200, rng, out_dtype=out, per_head=per_head)
    assert err_model < (2e-3 if out is np.float16 else 1e-2), err_model


def test_the_model_sees_e4m3_p(rng):
    """The modelled reference is not the dequantized one: rounding P to e4m3 changes the
    result by more than the tolerance the kernel is held to (so the tolerance checks it)."""
    q, k, v, qd, kd, vd = inputs(rng, 2, 200, True)
    a = modelled(q, k, v, qd, kd, vd, False, 1 / np.sqrt(D))
    b = dequantized(q, k, v, qd, kd, vd, False, 1 / np.sqrt(D))
    assert np.linalg.norm(a - b) / np.linalg.norm(b) > 1e-2


PIPELINES = ["ws-hopper", "ws-hopper{cooperative=2 pingpong=true depth=2}", "ws-hopper{cooperative=2 depth=2}",
             "ws-hopper{persistent=true programs=3}"]


@pytest.mark.parametrize("name,causal,vt", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("pipeline", PIPELINES)
def test_kernel_after_ws_hopper(name, causal, vt, pipeline, rng):
    m = compile_kernel(KERNELS / f"{name}.mlir", pipeline, file=name, shared=True)
    ops = {o.name for o in m.walk()}
    assert {"nvgpu.wgmma.mma_async", "nvgpu.convert_layout"} <= ops
    assert ("nvgpu.smem.store" in ops) != vt  # V is transposed in the kernel unless given as V^T
    err_model, err_exact = run(m, name, causal, vt, 300, rng, seed=5)
    assert err_model < 1e-2, err_model
    assert err_exact < 6e-2, err_exact


def test_bench_fp8_dry_run(capsys, monkeypatch):
    """bench/attention.py --dtypes fp8 --dry-run compiles the fp8 kernel it would time and the
    bf16 kernel its rows compare with, without a GPU (its main in this process)."""
    import sys

    from bench_scripts import load

    bench = load("attention", monkeypatch)
    monkeypatch.setattr(sys, "argv", ["attention.py", "--dry-run", "--dtypes", "fp8", "--dims", "128", "--causal", "1",
                                      "--variants", "ws-hopper"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        bench.main()
    r = capsys.readouterr()
    assert exit_.value.code == 0, r.out + r.err
    assert "('fp8', 128, True) ws-hopper: ok" in r.out
    assert "('bf16 for fp8', 128, True) ws-hopper: ok" in r.out
    assert "('fp8 V^T', 128, False) ws-hopper: ok" in r.out


def kv_heads_of(B, H, Hkv):
    """The K/V head each query head (b * H + h) reads: b * Hkv + h / (H / Hkv)."""
    return np.array([(bh // H) * Hkv + (bh % H) // (H // Hkv) for bh in range(B * H)])


@pytest.mark.parametrize("pipeline", ["", "ws-hopper", "ws-hopper{cooperative=2 pingpong=true depth=2}"])
@pytest.mark.parametrize("H,Hkv", [(4, 2), (4, 1), (2, 2)])
def test_gqa(pipeline, H, Hkv, rng):
    """flash_attention_fp8_gqa: query heads b * H + h read K/V head b * Hkv + h / (H / Hkv), whose
    k/v descales they use."""
    name, B, L = "flash_attention_fp8_gqa", 2, 200
    m = compile_kernel(KERNELS / f"{name}.mlir", pipeline, file=name, shared=True)
    q = rng.standard_normal((B * H, L, D)).astype(E4M3)
    k, v = ((rng.standard_normal((B * Hkv, L, D)) * s).astype(E4M3) for s in (1.0, 2.0))
    qd = rng.uniform(0.2, 2.0, B * H).astype(np.float32)
    kd, vd = (rng.uniform(0.2, 2.0, B * Hkv).astype(np.float32) for _ in range(2))
    o = np.full((B * H, L, D), np.nan, ml_dtypes.bfloat16)
    sm = float(1 / np.sqrt(D))
    wsdialects.interpret(m, name, grid=(-(-L // 128), B * H), args=[q, k, v, o, qd, kd, vd, 1, H, Hkv, L, sm],
                         seed=3 if pipeline else None)
    got = o.astype(np.float64)
    assert not np.isnan(got).any()
    g = kv_heads_of(B, H, Hkv)
    want = modelled(q, k[g], v[g], qd, kd[g], vd[g], False, sm)
    assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-2


@pytest.mark.parametrize("pipeline", ["", "ws-hopper", "ws-hopper{cooperative=2 pingpong=true depth=2}"])
@pytest.mark.parametrize("window,L", [(1, 200), (50, 300), (128, 257), (200, 400), (1000, 300)])
def test_sliding_window(pipeline, window, L, rng):
    """flash_attention_fp8_window: query m attends keys m - window < n <= m; the loop starts
    at the first key block the query block reaches, and rows with no key in a block stay
    finite (window 1: a row attends only itself; window past L: causal)."""
    name = "flash_attention_fp8_window"
    m = compile_kernel(KERNELS / f"{name}.mlir", pipeline, file=name, shared=True)
    q, k, v, qd, kd, vd = inputs(rng, 2, L, True)
    o = np.full((2, L, D), np.nan, ml_dtypes.bfloat16)
    sm = float(1 / np.sqrt(D))
    wsdialects.interpret(m, name, grid=(-(-L // 128), 2), args=[q, k, v, o, qd, kd, vd, 1, window, L, sm],
                         seed=4 if pipeline else None)
    got = o.astype(np.float64)
    assert not np.isnan(got).any()
    want = modelled(q, k, v, qd, kd, vd, True, sm, window)
    exact = dequantized(q, k, v, qd, kd, vd, True, sm, window)
    assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-2
    assert np.linalg.norm(got - exact) / np.linalg.norm(exact) < 6e-2
