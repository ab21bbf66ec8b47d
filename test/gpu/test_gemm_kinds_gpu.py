"""GPU correctness of the GEMM kinds of bench/gemm_kinds.py (test/Inputs/kernels/gemm_kinds/) against
torch at ragged shapes (M, N not multiples of the tile; K not a multiple of the K step, a multiple
of what TMA's 16-byte strides need), with ws-hopper, ws-hopper{persistent=true} and a persistent
kernel of 3 programs that loops over the tiles (one-warp-group kinds also at two CTAs per SM). Skips without torch or a Hopper GPU."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hopper_env import cdiv, rel_err, torch_on_hopper

torch = torch_on_hopper()
F = torch.nn.functional

import wsdialects  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KERN = ROOT / "test" / "Inputs" / "kernels"
GK = KERN / "gemm_kinds"
PIPELINES = ["ws-hopper", "ws-hopper{persistent=true}", "ws-hopper{persistent=true programs=3}"]
PIPES = pytest.mark.parametrize("pipe", PIPELINES)
# one-warp-group consumers also run two CTAs per SM (ws-occupancy), plain and persistent
SHARED_SM = pytest.mark.parametrize("pipe", PIPELINES + ["ws-hopper{ctas-per-sm=2}",
                                                         "ws-hopper{persistent=true ctas-per-sm=2}",
                                                         "ws-hopper{persistent=true ctas-per-sm=2 programs=5}"])


def weight(n, k, dtype=torch.float16):
    return (torch.randn(n, k, device="cuda") * k ** -0.5).to(dtype)


@SHARED_SM
def test_bias_gelu_gemm(pipe):
    k = wsdialects.compile(GK / "bias_gelu_gemm.mlir", pipeline=pipe)
    for M, N, K in [(300, 200, 328), (129, 1000, 1000), (64, 40, 8), (1000, 777, 2056)]:
        torch.manual_seed(M + N + K)
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        w = weight(N, K)
        bias = torch.randn(N, device="cuda", dtype=torch.float16)
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        k[cdiv(M, 128), cdiv(N, 128)](a, w, bias, c, M, N, K, N)
        torch.cuda.synchronize()
        x = a.double() @ w.double().T + bias.double()
        ref = 0.5 * x * (1 + (math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)).tanh())
        assert rel_err(c, ref) < 3e-3, (M, N, K)


@PIPES
def test_batched_tma_gemm(pipe):
    k = wsdialects.compile(GK / "batched_tma_gemm.mlir", pipeline=pipe)
    for B, M, N, K in [(3, 200, 296, 136), (2, 130, 264, 1000), (5, 64, 40, 8)]:
        torch.manual_seed(B + M + N + K)
        a = torch.randn(B, M, K, device="cuda", dtype=torch.float16)
        b = (torch.randn(B, N, K, device="cuda") * K ** -0.5).half()
        c = torch.full((B, M, N), float("nan"), device="cuda", dtype=torch.float16)
        k[cdiv(M, 128), cdiv(N, 256), B](a, b, c, K)
        torch.cuda.synchronize()
        assert rel_err(c, torch.bmm(a.double(), b.double().transpose(1, 2))) < 2e-3, (B, M, N, K)


@PIPES
def test_fp8_scaled_gemm(pipe):
    k = wsdialects.compile(GK / "fp8_scaled_gemm.mlir", pipeline=pipe)
    for M, N, K in [(200, 136, 336), (1000, 520, 1040), (64, 40, 16)]:
        torch.manual_seed(M + N + K)
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        sa = torch.tensor([0.75], device="cuda")
        sb = torch.tensor([K ** -0.5], device="cuda")
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k[cdiv(M, 128), cdiv(N, 256)](a, b, sa, sb, c, K)
        torch.cuda.synchronize()
        ref = a.float().double() @ b.float().double().T * (sa.double() * sb.double())
        assert rel_err(c, ref) < 6e-3, (M, N, K)


@SHARED_SM
def test_f32out_gemm(pipe):
    k = wsdialects.compile(GK / "f32out_gemm.mlir", pipeline=pipe)
    for M, N, K in [(100, 140, 136), (1000, 780, 1000), (64, 40, 8)]:
        torch.manual_seed(M + N + K)
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = weight(N, K)
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
        k[cdiv(M, 64) * cdiv(N, 128)](a, b, c, M, K)
        torch.cuda.synchronize()
        assert rel_err(c, a.double() @ b.double().T) < 1e-5, (M, N, K)


@PIPES
def test_gated_mlp(pipe):
    k = wsdialects.compile(GK / "gated_mlp.mlir", pipeline=pipe)
    for M, N, K in [(200, 136, 264), (1000, 776, 1000), (64, 40, 8)]:
        torch.manual_seed(M + N + K)
        x = torch.randn(M, K, device="cuda", dtype=torch.float16)
        w1, w3 = weight(N, K), weight(N, K)
        h = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        k[cdiv(M, 128) * cdiv(N, 128)](x, w1, w3, h, M, K)
        torch.cuda.synchronize()
        ref = F.silu(x.double() @ w1.double().T) * (x.double() @ w3.double().T)
        assert rel_err(h, ref) < 3e-3, (M, N, K)


@PIPES
def test_bf16_gemm(pipe):
    k = wsdialects.compile(GK / "bf16_gemm.mlir", pipeline=pipe)
    for M, N, K in [(300, 200, 328), (1000, 777, 2056), (64, 40, 8)]:
        torch.manual_seed(M + N + K)
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = weight(N, K, torch.bfloat16)
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k[cdiv(M, 128) * cdiv(N, 256)](a, b, c, M, N, K, N)
        torch.cuda.synchronize()
        assert rel_err(c, a.double() @ b.double().T) < 6e-3, (M, N, K)
