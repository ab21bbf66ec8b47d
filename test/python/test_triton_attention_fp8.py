"""The Triton FP8 attention example (examples/triton/attention_fp8.py: `tl.dot(p.to(v.dtype), v)`
with e4m3 V as stored, descales folded into the scale and the epilogue, O bf16), imported
from its checked-in TTIR (tools/regen_ttir.py) and interpreted against numpy, as imported and
after ws-hopper (which transposes V in shared memory and converts P into the 8-bit A
fragment); the imported kernels assemble with ptxas."""

import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, compile_ptx, run_ptxas
from test_attention_fp8_kernels import D, E4M3, dequantized, modelled
from wsdialects.lower.ptxas import parse_report
from wsdialects.triton.launch import expand

INPUTS = Path(__file__).resolve().parents[1] / "Inputs" / "triton"
SIG = {"Q": "*fp8e4nv", "K": "*fp8e4nv", "V": "*fp8e4nv", "O": "*bf16", "QD": "*fp32", "KD": "*fp32",
       "VD": "*fp32", "sm_scale": "fp32", "Z": "i32", "H": "i32"}


def run(module, Z, H, N, rng):
    q, k, v = ((rng.standard_normal((Z, H, N, D)) * s).astype(E4M3) for s in (1.0, 1.0, 2.0))
    qd, kd, vd = (rng.uniform(0.2, 2.0, (Z, H)).astype(np.float32) for _ in range(3))
    o = np.full((Z, H, N, D), np.nan, ml_dtypes.bfloat16)
    sm = 0.09
    args = expand(dict(Q=q, K=k, V=v, O=o, QD=qd, KD=kd, VD=vd, sm_scale=sm, Z=Z, H=H), SIG, "attention_fp8_kernel")
    wsdialects.interpret(module, "attention_fp8_kernel", (N // 128, Z * H), args, seed=2)
    got = o.reshape(Z * H, N, D).astype(np.float64)
    assert not np.isnan(got).any()
    flat = [x.reshape(Z * H, N, D) for x in (q, k, v)] + [x.reshape(-1) for x in (qd, kd, vd)]
    return got, modelled(*flat, False, sm), dequantized(*flat, False, sm)


def rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("pipeline", ["", "ws-hopper", "ws-hopper{cooperative=2 pingpong=true depth=2}"])
def test_imported_fp8_attention(pipeline, rng):
    name = "attention_fp8_e4m3_d128_n256"
    m = compile_kernel(INPUTS / f"{name}.ttir", pipeline, shared=True)
    if pipeline:
        assert {"nvgpu.convert_layout", "nvgpu.smem.store"} <= {o.name for o in m.walk()}
    got, want, exact = run(m, 1, 2, 256, rng)
    assert rel(got, want) < 1e-2
    assert rel(got, exact) < 6e-2


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="no ptxas")
@pytest.mark.parametrize("name", ["attention_fp8_e4m3_d128_n1024", "attention_fp8_causal_e4m3_d128_n1024"])
def test_imported_fp8_attention_assembles(name, capsys):
    """What `ws-opt -p ws-hopper -t ptx` writes and warns: no spill predicted by ws-register-budget
    (the pipeline's warnings, printed again by kernel_cache on a hit) nor reported by ptxas -v
    (as ws-opt's ptxas check would warn)."""
    path = INPUTS / f"{name}.ttir"
    compile_kernel(path, "ws-hopper", shared=True)
    assert "spills" not in capsys.readouterr().err
    rc, report = run_ptxas(compile_ptx(path, "ws-hopper"), shutil.which("ptxas"))
    assert rc == 0 and "0 bytes spill stores" in report, report
    assert not any(info.spills for info in parse_report(report).values()), report
