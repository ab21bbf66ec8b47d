"""GPU correctness of the Hopper lowering against torch (skips without torch or a GPU).

Kernels: the reference GEMM (examples/kernels/gemm.mlir, pointer-tile epilogue with masks),
bias GEMM (masked pointer load + TMA store), batched bf16 GEMM with a TMA store,
fp8 e4m3 GEMM, and a dual-dot (gated MLP) kernel; M, N, K not multiples of the tile.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)
if torch.cuda.get_device_capability() < (9, 0):
    pytest.skip("needs a Hopper GPU (sm_90a)", allow_module_level=True)
pytest.importorskip("cuda.bindings")

import wsdialects  # noqa: E402
from wsdialects.runtime.launch import LaunchError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KERN = ROOT / "test" / "Inputs" / "kernels"


def cdiv(a, b):
    return (a + b - 1) // b


def rel_err(out, ref):
    out, ref = out.double(), ref.double()
    assert not torch.isnan(out).any(), "NaN in the output (unwritten elements?)"
    return ((out - ref).norm() / ref.norm()).item()


@pytest.fixture(scope="module")
def gemm():
    return wsdialects.compile(ROOT / "examples" / "kernels" / "gemm.mlir", pipeline="ws-hopper", depth=3)


@pytest.mark.parametrize("M,N,K", [(128, 256, 64), (256, 512, 1024), (200, 300, 1000), (1000, 777, 2056),
                                   (64, 40, 8), (3000, 2900, 520)])
def test_gemm(gemm, M, N, K):
    torch.manual_seed(M * 7 + N * 3 + K)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    gemm[cdiv(M, 128) * cdiv(N, 256)](a, b, c, M, N, K, N)
    torch.cuda.synchronize()
    ref = a.float() @ b.float().T
    assert rel_err(c, ref) < 2e-3


def test_gemm_strided_k(gemm):
    # K = 100 is not a multiple of 8: read through a view of a padded buffer (TMA needs
    # 16-byte strides); the box past K reads zeros.
    M, N, K = 190, 260, 100
    a = torch.randn(M, 104, device="cuda", dtype=torch.float16)[:, :K]
    b = torch.randn(N, 104, device="cuda", dtype=torch.float16)[:, :K]
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    gemm[cdiv(M, 128) * cdiv(N, 256)](a, b, c, M, N, K, N)
    torch.cuda.synchronize()
    assert rel_err(c, a.float() @ b.float().T) < 2e-3


@pytest.mark.parametrize("pipeline,opts,programs", [
    ("ws-hopper", {"depth": 1, "mma_depth": 0}, None),
    ("ws-hopper", {"depth": 2, "mma_depth": 1}, None),
    ("ws-hopper", {"depth": 4, "mma_depth": 3}, None),
    ("ws-hopper", {"persistent": True, "programs": 5}, None),   # 5 programs loop over 9 tiles
    ("ws-partition,ws-distribute{depth=3}", {}, None),   # no wgmma pipelining (wait 0 per dot)
])
def test_gemm_pipelines(pipeline, opts, programs):
    k = wsdialects.compile(ROOT / "examples" / "kernels" / "gemm.mlir", pipeline=pipeline, **opts)
    M, N, K = 384, 600, 1216
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k[cdiv(M, 128) * cdiv(N, 256)](a, b, c, M, N, K, N)
    torch.cuda.synchronize()
    assert rel_err(c, a.float() @ b.float().T) < 2e-3


def test_bias_gemm():
    k = wsdialects.compile(KERN / "bias_gemm.mlir")
    M, N, K = 300, 200, 328
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    bias = torch.randn(N, device="cuda", dtype=torch.float32)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k[cdiv(M, 64), cdiv(N, 64)](a, b, bias, c, N, K)
    torch.cuda.synchronize()
    assert rel_err(c, a.float() @ b.float().T + bias) < 2e-3


def test_batched_gemm_tma_store():
    k = wsdialects.compile(KERN / "batched_gemm.mlir")
    B, M, N, K = 3, 128, 192, 200
    a = torch.randn(B * M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(B * N, K, device="cuda", dtype=torch.bfloat16)
    c = torch.full((B * M, N), float("nan"), device="cuda", dtype=torch.float32)
    k[M // 64, N // 64, B](a, b, c, M, N, K)
    torch.cuda.synchronize()
    ref = torch.bmm(a.float().view(B, M, K), b.float().view(B, N, K).transpose(1, 2)).reshape(B * M, N)
    assert rel_err(c, ref) < 1e-4


def test_fp8_gemm():
    k = wsdialects.compile(KERN / "fp8_gemm.mlir")
    M, N, K = 200, 136, 336
    a = (torch.randn(M, K, device="cuda") * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device="cuda") * 0.5).to(torch.float8_e4m3fn)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k[cdiv(M, 64), cdiv(N, 64)](a, b, c, K)
    torch.cuda.synchronize()
    assert rel_err(c, a.float() @ b.float().T) < 2e-3


def test_dual_dot():
    k = wsdialects.compile(KERN / "dual_dot.mlir")
    M, N, K = 130, 120, 264
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    wg = torch.randn(N, K, device="cuda", dtype=torch.float16)
    wu = torch.randn(N, K, device="cuda", dtype=torch.float16)
    o = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
    k[cdiv(M, 64), cdiv(N, 64)](a, wg, wu, o, K)
    torch.cuda.synchronize()
    ref = (a.float() @ wg.float().T) * (a.float() @ wu.float().T)
    assert rel_err(o, ref) < 1e-4


def test_argument_errors(gemm):
    a = torch.randn(128, 64, device="cuda", dtype=torch.float16)
    c = torch.empty(128, 256, device="cuda", dtype=torch.float16)
    with pytest.raises(LaunchError, match="expected 7 arguments"):
        gemm[1](a, a, c)
    with pytest.raises(LaunchError, match=r"argument 1 \(b_desc\): expected dtype torch.float16"):
        gemm[1](a, a.float(), c, 128, 256, 64, 256)
    with pytest.raises(LaunchError, match=r"argument 0 \(a_desc\): .*2-D tensor"):
        gemm[1](a.view(-1), a, c, 128, 256, 64, 256)
    with pytest.raises(LaunchError, match=r"argument 3 \(M\): expected an int"):
        gemm[1](a, a, c, 1.5, 256, 64, 256)
    with pytest.raises(LaunchError, match="16-byte aligned"):
        gemm[1](a.view(-1)[1:8129].view(127, 64), a, c, 1, 1, 1, 1)  # 2-byte offset
    with pytest.raises(LaunchError, match="not on a CUDA device"):
        gemm[1](a.cpu(), a, c, 128, 256, 64, 256)
