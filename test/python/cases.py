"""Kernels with argument builders, shared by the semantic (before/after) tests.

Each case makes fresh random arguments for its kernel at shapes that are not
multiples of the tile sizes, and names the arrays the kernel writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import ml_dtypes
import numpy as np

from conftest import shared_dir

INPUTS = Path(__file__).resolve().parents[1] / "Inputs" / "kernels"


@dataclass
class Case:
    name: str
    path: Callable[[], Path]
    kernel: str
    make: Callable[[np.random.Generator], tuple[tuple, list]]  # -> (grid, args)
    outputs: tuple[int, ...]  # indices of the args the kernel writes


def cdiv(a, b):
    return -(-a // b)


def _f16(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16)


def gemm_args(rng, M=200, N=300, K=100):
    a, b = _f16(rng, M, K), _f16(rng, N, K)
    c = np.zeros((M, N), np.float16)
    return (cdiv(M, 128) * cdiv(N, 256),), [a, b, c, M, N, K, N]


def attention_args(rng, L=384, H=2, D=128):
    q, k, v = (_f16(rng, H * L, D) for _ in range(3))
    o = np.zeros((H * L, D), np.float16)
    return (cdiv(L, 128), H), [q, k, v, o, L, float(1 / np.sqrt(D))]


def bias_gemm_args(rng, M=100, N=150, K=70):
    a, b = _f16(rng, M, K), _f16(rng, N, K)
    bias = rng.standard_normal(N).astype(np.float32)
    c = np.zeros((M, N), np.float16)
    return (cdiv(M, 64), cdiv(N, 64)), [a, b, bias, c, N, K]


def batched_gemm_args(rng, B=3, M=128, N=80, K=70):
    # M is a multiple of the 64-row tile: C is one [B*M, N] array, so a ragged
    # M would make one batch's last tile overwrite the next batch's rows (a race).
    a = rng.standard_normal((B * M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((B * N, K)).astype(ml_dtypes.bfloat16)
    c = np.zeros((B * M, N), np.float32)
    return (cdiv(M, 64), cdiv(N, 64), B), [a, b, c, M, N, K]


def dual_dot_args(rng, M=100, N=64, K=100):
    a, g, u = _f16(rng, M, K), _f16(rng, N, K), _f16(rng, N, K)
    o = np.zeros((M, N), np.float32)
    return (cdiv(M, 64), cdiv(N, 64)), [a, g, u, o, K]


def fp8_gemm_args(rng, M=128, N=100, K=200):
    a = rng.standard_normal((M, K)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.standard_normal((N, K)).astype(ml_dtypes.float8_e4m3fn)
    c = np.zeros((M, N), np.float16)
    return (cdiv(M, 64), cdiv(N, 64)), [a, b, c, K]


def mean_gemm_args(rng, M=128, K=100):
    a, b = _f16(rng, M, K), _f16(rng, 64, K)
    s = rng.standard_normal((M, 64)).astype(np.float32)
    c = np.zeros(M * 64, np.float32)
    return (cdiv(M, 64),), [a, b, s, c, K]


def fused_mlp_args(rng, M=100, H=150):
    x, w1, w2 = _f16(rng, M, 64), _f16(rng, H, 64), _f16(rng, H, 64)
    o = np.zeros((M, 64), np.float32)
    return (cdiv(M, 64),), [x, w1, w2, o, M, H]


def softmax_gemm_args(rng, M=200, N=100, K=100):
    a, b = _f16(rng, M, K), _f16(rng, N, K)
    p = np.zeros((M, N), np.float16)
    rowmax = np.zeros(M, np.float32)
    return (cdiv(M, 128),), [a, b, p, rowmax, M, N, K]


def fused_mlp_empty_args(rng):
    return fused_mlp_args(rng, M=70, H=0)  # the hidden loop runs no iteration


CASES = [
    Case("gemm", lambda: shared_dir() / "kernels" / "gemm.mlir", "matmul", gemm_args, (2,)),
    Case("attention", lambda: shared_dir() / "kernels" / "attention.mlir", "attention", attention_args, (3,)),
    Case("causal_attention", lambda: INPUTS / "causal_attention.mlir", "causal_attention", attention_args, (3,)),
    Case("bias_gemm", lambda: INPUTS / "bias_gemm.mlir", "bias_gemm", bias_gemm_args, (3,)),
    Case("batched_gemm", lambda: INPUTS / "batched_gemm.mlir", "batched_gemm", batched_gemm_args, (2,)),
    Case("dual_dot", lambda: INPUTS / "dual_dot.mlir", "dual_dot", dual_dot_args, (3,)),
    Case("fp8_gemm", lambda: INPUTS / "fp8_gemm.mlir", "fp8_gemm", fp8_gemm_args, (2,)),
    Case("mean_gemm", lambda: INPUTS / "mean_gemm.mlir", "mean_gemm", mean_gemm_args, (3,)),
    Case("fused_mlp", lambda: INPUTS / "fused_mlp.mlir", "fused_mlp", fused_mlp_args, (3,)),
    Case("fused_mlp_empty", lambda: INPUTS / "fused_mlp.mlir", "fused_mlp", fused_mlp_empty_args, (3,)),
    Case("softmax_gemm", lambda: INPUTS / "softmax_gemm.mlir", "softmax_gemm", softmax_gemm_args, (2, 3)),
]


def copy_args(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def run(module, case: Case, grid, args, seed=None):
    import wsdialects

    args = copy_args(args)
    wsdialects.interpret(module, case.kernel, grid, args, seed=seed)
    return [args[i] for i in case.outputs]


def _difference(x, y) -> str:
    d = np.abs(x.astype(np.float64) - y.astype(np.float64))
    nan = np.isnan(x.astype(np.float64)) != np.isnan(y.astype(np.float64))
    finite = d[~np.isnan(d)]
    return (f"max |diff| = {finite.max() if finite.size else 'none'}"
            + (f", {int(nan.sum())} elements NaN on one side only" if nan.any() else ""))


def assert_same(before, after):
    for x, y in zip(before, after, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert np.array_equal(x.astype(np.float64), y.astype(np.float64), equal_nan=True), \
            f"outputs differ: {_difference(x, y)}"
