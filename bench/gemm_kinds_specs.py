"""The kinds of bench/gemm_kinds.py: kernel file, problem, FLOPs, inputs, float64 reference, the
torch peers of each and its Triton peer on the same tile shape (torch and bench/triton_peers.py are
passed in: importing this file needs neither torch, triton nor a GPU)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "test" / "Inputs" / "kernels" / "gemm_kinds"
MN = 8192  # M = N of the 2-D kinds
BATCH, BMN = 8, 4096  # the batched kind: 8 x 4096 x 4096 (twice the outputs of one 8192^2)


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


@dataclass
class Kind:
    key: str
    title: str
    file: str
    tile: str
    problem: str
    flop_text: str
    peer_text: str
    flops: Callable[[int], float]
    setup: Callable  # (torch, K) -> {"launcher": k -> launch(), "out", "ref" (float64), "peers": [(label, fn)],
    #                                 "triton": (triton_peers, stages, warps) -> launch() (writes "out")}
    block: tuple[int, int, int] = (128, 128, 64)  # the .mlir kernel's tile (BM, BN, BK): the Triton peer's too
    triton_configs: tuple = ((3, 8), (2, 8))  # (num_stages, num_warps) tried for the Triton peer
    triton_text: str = ""  # what the Triton peer does beyond the plain GEMM


def kernel_tile(kind: Kind) -> tuple[int, int, int]:
    """(BM, BN, BK) of the kind's .mlir kernel, read from its first two descriptor types (A's box is
    BM x BK, B's BN x BK): the tile its Triton peer must use."""
    boxes = re.findall(r"!tile\.desc<tensor<(\d+)x(\d+)x", (KERNELS / kind.file).read_text())
    (bm, bk), (bn, bk2) = [(int(r), int(c)) for r, c in boxes[:2]]
    assert bk == bk2, f"{kind.file}: A's and B's boxes differ in K ({bk} vs {bk2})"
    return bm, bn, bk


def _weight(torch, n, k, dtype):
    """A weight as a linear layer has it: N x K, entries ~ N(0, 1/K) (outputs of order 1)."""
    return (torch.randn(n, k, device="cuda") * k ** -0.5).to(dtype)


def _gelu_tanh64(x):
    return 0.5 * x * (1 + (math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)).tanh())


# ---- (a) bias + GELU-tanh
def setup_a(torch, K):
    F = torch.nn.functional
    M = N = MN
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w = _weight(torch, N, K, torch.float16)
    bias = torch.randn(N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ref = _gelu_tanh64(a.double() @ w.double().T + bias.double())
    grid = (cdiv(M, 128), cdiv(N, 128))
    return {"out": c, "ref": ref,
            "launcher": lambda k: (lambda: k[grid](a, w, bias, c, M, N, K, N)),
            "triton": lambda tp, st, nw: (lambda: tp.tma_persistent_matmul(a, w, c, KINDS["a"].block, st, nw, bias=bias,
                                                                           epilogue="bias_gelu")),
            "peers": [("F.linear + F.gelu(tanh)", lambda: F.gelu(F.linear(a, w, bias), approximate="tanh")),
                      ("torch._addmm_activation(gelu)", lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True))]}


# ---- (b) batched, TMA store
def setup_b(torch, K):
    B, M, N = BATCH, BMN, BMN
    a = torch.randn(B, M, K, device="cuda", dtype=torch.float16)
    b = (torch.randn(B, N, K, device="cuda") * K ** -0.5).half()
    c = torch.empty(B, M, N, device="cuda", dtype=torch.float16)
    ref = torch.bmm(a.double(), b.double().transpose(1, 2))
    grid = (cdiv(M, 128), cdiv(N, 256), B)
    return {"out": c, "ref": ref,
            "launcher": lambda k: (lambda: k[grid](a, b, c, K)),
            "triton": lambda tp, st, nw: (lambda: tp.tma_persistent_matmul(a, b, c, KINDS["b"].block, st, nw)),
            "peers": [("torch.bmm", lambda: torch.bmm(a, b.transpose(1, 2)))]}


# ---- (g) batched at Tawa's setting: batch 8, M = N = K (the "K" of --ks)
def setup_g(torch, K):
    B, M, N = BATCH, K, K
    a = torch.randn(B, M, K, device="cuda", dtype=torch.float16)
    b = (torch.randn(B, N, K, device="cuda") * K ** -0.5).half()
    c = torch.empty(B, M, N, device="cuda", dtype=torch.float16)
    # a float32 reference (no TF32): float64 copies of 8 x 16k x 16k would need ~100 GB at K = 16k
    ref = torch.bmm(a.float(), b.float().transpose(1, 2))
    grid = (cdiv(M, 128), cdiv(N, 256), B)
    return {"out": c, "ref": ref,
            "launcher": lambda k: (lambda: k[grid](a, b, c, K)),
            "triton": lambda tp, st, nw: (lambda: tp.tma_persistent_matmul(a, b, c, KINDS["g"].block, st, nw)),
            "peers": [("torch.bmm", lambda: torch.bmm(a, b.transpose(1, 2)))]}


# ---- (c) fp8 e4m3 with per-tensor scales
_SCALED_MM_FORM: list = []  # which scale shape this torch takes, found on the first call


def _scaled_mm(torch, a, bt, sa, sb, fast):
    forms = _SCALED_MM_FORM or [lambda s: s, lambda s: s.reshape(())]
    err = None
    for form in forms:
        try:
            r = torch._scaled_mm(a, bt, scale_a=form(sa), scale_b=form(sb), out_dtype=torch.bfloat16,
                                 use_fast_accum=fast)
            _SCALED_MM_FORM[:] = [form]
            return r[0] if isinstance(r, tuple) else r  # torch < 2.5 returned (out, amax)
        except (RuntimeError, TypeError) as e:
            err = e
    raise err


def setup_c(torch, K):
    M = N = MN
    a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
    sa = torch.tensor([0.5], device="cuda", dtype=torch.float32)
    sb = torch.tensor([K ** -0.5], device="cuda", dtype=torch.float32)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    ref = (a.float().double() @ b.float().double().T) * (0.5 * float(sb.item()))
    grid = (cdiv(M, 128), cdiv(N, 256))
    bt = b.t()  # column-major K x N, what _scaled_mm wants for its second operand
    return {"out": c, "ref": ref,
            "launcher": lambda k: (lambda: k[grid](a, b, sa, sb, c, K)),
            "triton": lambda tp, st, nw: (lambda: tp.tma_persistent_matmul(a, b, c, KINDS["c"].block, st, nw,
                                                                           scales=(sa, sb), epilogue="scale")),
            "peers": [("torch._scaled_mm", lambda: _scaled_mm(torch, a, bt, sa, sb, False)),
                      ("torch._scaled_mm(use_fast_accum)", lambda: _scaled_mm(torch, a, bt, sa, sb, True))]}


# ---- (d) f32 output, 64x128 tiles
def setup_d(torch, K):
    M = N = MN
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = _weight(torch, N, K, torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    ref = a.double() @ b.double().T
    notes = []
    try:  # torch >= 2.8: fp16 x fp16 -> fp32 in one cuBLAS call
        torch.mm(a[:16, :16], b[:16, :16].t(), out_dtype=torch.float32)
        peer = ("torch.mm(out_dtype=float32)", lambda: torch.mm(a, b.t(), out_dtype=torch.float32))
    except (TypeError, RuntimeError) as e:
        peer = ("torch.matmul(...).float()", lambda: torch.matmul(a, b.t()).float())
        notes.append(f"torch.mm(..., out_dtype=torch.float32) is not available here ({type(e).__name__}: "
                     f"{str(e)[:120]}); the peer is torch.matmul(a, b.t()).float() (fp16 result, then a cast)")
    grid = cdiv(M, 64) * cdiv(N, 128)
    return {"out": c, "ref": ref, "notes": notes,
            "launcher": lambda k: (lambda: k[grid](a, b, c, M, K)),
            "triton": lambda tp, st, nw: (lambda: tp.tma_persistent_matmul(a, b, c, KINDS["d"].block, st, nw)),
            "peers": [peer]}


# ---- (e) gated MLP
def setup_e(torch, K):
    F = torch.nn.functional
    M = N = MN
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w1 = _weight(torch, N, K, torch.float16)
    w3 = _weight(torch, N, K, torch.float16)
    w13 = torch.cat([w1, w3])  # the merged gate/up weight of an optimized model, built once
    h = torch.empty(M, N, device="cuda", dtype=torch.float16)
    g = x.double() @ w1.double().T
    ref = F.silu(g) * (x.double() @ w3.double().T)
    del g
    grid = cdiv(M, 128) * cdiv(N, 128)

    def merged():
        y = x @ w13.T
        return F.silu(y[:, :N]) * y[:, N:]

    return {"out": h, "ref": ref,
            "launcher": lambda k: (lambda: k[grid](x, w1, w3, h, M, K)),
            "triton": lambda tp, st, nw: (lambda: tp.tma_persistent_matmul(x, w1, h, KINDS["e"].block, st, nw, b2=w3,
                                                                           epilogue="silu_mul")),
            "peers": [("F.silu(x@w1.T) * (x@w3.T)", lambda: F.silu(x @ w1.T) * (x @ w3.T)),
                      ("x@[w1;w3].T, silu * mul", merged)]}


# ---- (f) bf16
def setup_f(torch, K):
    M = N = MN
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = _weight(torch, N, K, torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    ref = a.double() @ b.double().T
    grid = cdiv(M, 128) * cdiv(N, 256)
    return {"out": c, "ref": ref,
            "launcher": lambda k: (lambda: k[grid](a, b, c, M, N, K, N)),
            "triton": lambda tp, st, nw: (lambda: tp.tma_persistent_matmul(a, b, c, KINDS["f"].block, st, nw)),
            "peers": [("torch.matmul", lambda: torch.matmul(a, b.T))]}


_F2 = "2·M·N·K FLOPs"
KINDS = {k.key: k for k in [
    Kind("a", "bias + GELU-tanh epilogue, one consumer warp group (fp16)", "bias_gelu_gemm.mlir",
         "128x128x64 tiles, 4 consumer warps (one warp group), masked pointer-store epilogue",
         f"M = N = {MN}, fp16 in and out, fp16 bias", _F2 + " (the epilogue not counted)",
         "`F.gelu(F.linear(x, w, bias), approximate='tanh')` (cuBLAS GEMM with a bias epilogue, then a GELU "
         "kernel); also `torch._addmm_activation(bias, x, w.t(), use_gelu=True)`, cuBLASLt's fused "
         "bias + GELU epilogue (private API)",
         lambda K: 2.0 * MN * MN * K, setup_a, (128, 128, 64), ((4, 4), (5, 4), (4, 8)),
         "bias row loaded per tile (masked at N), GELU-tanh with `tanh.approx.f32` as ours, fp16 TMA store"),
    Kind("b", "batched GEMM, 3-D TMA descriptors, TMA-store epilogue (fp16)", "batched_tma_gemm.mlir",
         "128x256x64 tiles, 8 consumer warps, TMA store", f"batch {BATCH} x M = N = {BMN}, fp16 in and out",
         "2·batch·M·N·K FLOPs", "`torch.bmm(a, b.transpose(1, 2))`",
         lambda K: 2.0 * BATCH * BMN * BMN * K, setup_b, (128, 256, 64), ((3, 8), (2, 8), (3, 16)),
         "3-D descriptors (a [1, BM, BK] box per access, batch first, as ours), the persistent loop running "
         "over batch x tiles, TMA store"),
    Kind("c", "fp8 e4m3 with per-tensor scales (bf16 out)", "fp8_scaled_gemm.mlir",
         "128x256x128 tiles, 8 consumer warps, scales read in the epilogue, TMA store",
         f"M = N = {MN}, e4m3 in, bf16 out, scale_a = 0.5, scale_b = K^-1/2", _F2,
         "`torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=torch.bfloat16)` (cuBLASLt fp8); also with "
         "`use_fast_accum=True` (no periodic promotion of the tensor-core accumulator, as our kernel)",
         lambda K: 2.0 * MN * MN * K, setup_c, (128, 256, 128), ((3, 8), (2, 8), (3, 16)),
         "e4m3 `tl.dot` (Triton's default on sm_90: no periodic promotion of the accumulator, as ours), "
         "scale_a * scale_b read per tile, bf16 TMA store"),
    Kind("d", "64x128 tiles, f32 output", "f32out_gemm.mlir",
         "64x128x64 tiles, 4 consumer warps (one warp group), TMA store of the fp32 accumulator",
         f"M = N = {MN}, fp16 in, fp32 out", _F2,
         "`torch.mm(a, b.t(), out_dtype=torch.float32)` (torch >= 2.8: cuBLAS fp16 GEMM with an fp32 result; "
         "where it is missing, `torch.matmul(a, b.t()).float()`, said below the table)",
         lambda K: 2.0 * MN * MN * K, setup_d, (64, 128, 64), ((4, 4), (6, 4), (4, 8)),
         "the fp32 accumulator stored as it is through a TMA store"),
    Kind("e", "gated MLP silu(x·W1ᵀ) * (x·W3ᵀ), two dots on one x load (fp16)", "gated_mlp.mlir",
         "128x128x64 tiles, 8 consumer warps, two 128x128 accumulators, TMA store",
         f"M = N = {MN}, fp16 in and out", "4·M·N·K FLOPs (two GEMMs)",
         "`F.silu(x @ w1.T) * (x @ w3.T)` (two cuBLAS GEMMs, silu, mul); also one GEMM on the merged "
         "weight `[w1; w3]` (built once, outside the timing) + silu * mul",
         lambda K: 4.0 * MN * MN * K, setup_e, (128, 128, 64), ((3, 8), (4, 8), (2, 8)),
         "one x load per K step feeding two dots (w1, w3) into two fp32 accumulators, silu(g) = g / (1 + exp(-g)) "
         "times u, fp16 TMA store"),
    Kind("f", "bf16 plain GEMM", "bf16_gemm.mlir",
         "128x256x64 tiles, 8 consumer warps, masked pointer-store epilogue", f"M = N = {MN}, bf16 in and out",
         _F2, "`torch.matmul(a, b.T)` (cuBLAS)",
         lambda K: 2.0 * MN * MN * K, setup_f, (128, 256, 64), ((3, 8), (2, 8), (3, 16)),
         "bf16 in and out, TMA store"),
    Kind("g", "batched GEMM at Tawa's setting, batch 8, M = N = K (fp16)", "batched_tma_gemm.mlir",
         "128x256x64 tiles, 8 consumer warps, TMA store (the kernel of kind b)",
         f"batch {BATCH} x M = N = K (the K column; Tawa Fig. 9 runs 1k to 16k), fp16 in and out, float32 "
         "reference", "2·batch·K³ FLOPs", "`torch.bmm(a, b.transpose(1, 2))`",
         lambda K: 2.0 * BATCH * K * K * K, setup_g, (128, 256, 64), ((3, 8), (2, 8), (3, 16)),
         "3-D descriptors (a [1, BM, BK] box per access, batch first, as ours), the persistent loop running "
         "over batch x tiles, TMA store"),
]}
