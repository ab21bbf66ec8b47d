"""bench/triton_attention_bwd.py, the Triton peer of bench/attention_bwd.py (the fused-attention
tutorial's backward): its forward's O and LSE (log2 units) and its backward's dQ, dK, dV against
torch autograd of float32 SDPA, run by Triton's interpreter on CPU tensors at small sizes (d 64;
B, H, L from triton_attention_bwd_interp.SHAPES: L 1, 64, 200, 130), every config of CONFIGS,
causal and not, outputs poisoned with NaN first. The interpreter needs TRITON_INTERPRET=1 before
triton is imported, so the cases run in a process of their own (triton_attention_bwd_interp.py)
and these tests check its results. They need torch and triton and skip without either: the
project's CI venv has triton but no torch, so they skip there. bf16 runs only where the
interpreter's tl.dot computes bf16 values (Triton 3.9's does not: triton-lang/triton#11584); the
GPU run of the benchmark checks bf16. test_kernels_compile_for_hopper needs triton only: the
kernels compile for sm_90a (wgmma) without a GPU."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TOL = 1e-2


@pytest.fixture(scope="module")
def interp():
    """The JSON of triton_attention_bwd_interp.py run with TRITON_INTERPRET=1."""
    for name in ("torch", "triton"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"needs {name}")
    env = dict(os.environ, TRITON_INTERPRET="1")
    r = subprocess.run([sys.executable, str(HERE / "triton_attention_bwd_interp.py")], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout)
    if "skip" in out:
        pytest.skip(out["skip"])
    return out


def _cases(dname):
    from triton_attention_bwd_interp import SHAPES

    return [f"{dname} {c} {B}x{H}x{L}" for c in ("full", "causal") for B, H, L in SHAPES]


@pytest.mark.parametrize("case", _cases("fp16") + _cases("bf16"))
def test_forward_and_backward_match_autograd(interp, case):
    if case.startswith("bf16") and interp["bf16"]:
        pytest.skip(interp["bf16"])
    res = interp["cases"][case]
    assert res["o"] < TOL and res["lse"] < 1e-3, res
    assert res["lse_shape"] == [int(x) for x in case.split()[-1].split("x")] and res["lse_dtype"] == "torch.float32"
    for cfg in interp["configs"]:
        assert res[cfg]["out"], cfg  # writes into out= and returns it
        errs = res[cfg]["errors"]
        if case.endswith("x1"):  # one key: dQ = dK = 0 exactly; theirs rounding noise (P = 1 - ulp)
            assert max(errs[:2]) < 1e-5 and errs[2] < TOL, (cfg, errs)
        else:
            assert all(e != "nan" and e < TOL for e in errs), (cfg, errs)


def test_backward_takes_the_lse_of_another_forward(interp):
    """The LSE convention: torch's natural-log LSE / ln 2 (log2 units, as wsdialects'
    attention_forward returns it) gives autograd's gradients on [BH, L, d] inputs; the same
    LSE plus 1 does not."""
    res = interp["cases"]["torch lse"]
    assert res["right"] < TOL and res["off by one"] > 0.3, res


def test_bad_arguments_are_errors(interp):
    errors = interp["cases"]["errors"]
    assert "BM2 must equal BN1" in errors["config"]
    assert "head dim must be 64 or 128, got 32" in errors["head dim"]
    assert "dtype must be float16 or bfloat16" in errors["dtype"]


def test_kernels_compile_for_hopper():
    """The backward (masked form, causal), preprocess and forward kernels compile for sm_90a with
    Triton's NVIDIA backend, no GPU needed, their dots as wgmma."""
    pytest.importorskip("triton")
    from triton.runtime.interpreter import InterpretedFunction

    spec = importlib.util.spec_from_file_location("triton_attention_bwd_compiled", ROOT / "bench" /
                                                  "triton_attention_bwd.py")
    tab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tab)
    if isinstance(tab._attn_bwd, InterpretedFunction):
        pytest.skip("TRITON_INTERPRET is set: the kernels are interpreted, not compiled")
    try:
        k = tab.compile_for_hopper("backward", "fp16", 64, True, tab.CONFIGS[0])
    except ImportError as e:
        pytest.skip(f"no Triton NVIDIA backend here: {e}")
    ptx = k.asm["ptx"]
    assert ".target sm_90a" in ptx and ptx.count("wgmma.mma_async") > 0
    assert 0 < k.metadata.shared <= 227 * 1024
    assert "wgmma.mma_async" in tab.compile_for_hopper("forward", "bf16", 64, False).asm["ptx"]
    assert "ld.global" in tab.compile_for_hopper("preprocess", "bf16", 64, False).asm["ptx"]
    with pytest.raises(ValueError, match="kernel must be"):
        tab.compile_for_hopper("dq", "fp16", 64, False)
