"""How bench/gemm.py (and tools/fill_ptx_cache.py, the probes) compile a GEMM variant of
examples/kernels/gemm.mlir (no torch needed), and the problem they time it on (`problem`)."""

from __future__ import annotations

import os
from pathlib import Path

import wsdialects

ROOT = Path(__file__).resolve().parents[1]

SOLVER = "ws-schedule{arch=h100},"  # a variant starting so compiles test/Inputs/kernels/scheduled/gemm.mlir


def compile_variant(variant: str):
    """A variant is a ws-opt pipeline; a 'scalar-stores:' prefix compiles it with the pointer-tile
    epilogue storing element by element from the accumulator fragment (the lowering before the
    shared-memory-staged, 16-byte-vector epilogue), for comparison; a 'src=PATH:' prefix compiles
    another kernel of the same arguments and grid (e.g. bench/kernels/grouped/gemm.mlir)."""
    src = ROOT / "examples" / "kernels" / "gemm.mlir"
    if variant.startswith("src="):
        path, variant = variant[4:].split(":", 1)
        src = ROOT / path
    scalar = variant.startswith("scalar-stores:")
    pipe = variant.split(":", 1)[1] if scalar else variant
    if pipe.startswith(SOLVER):  # the solver's schedule, kept as IR (no OR-Tools needed)
        src, pipe = ROOT / "test" / "Inputs" / "kernels" / "scheduled" / "gemm.mlir", pipe[len(SOLVER):]
    old = os.environ.get("WSDIALECTS_SCALAR_STORES")
    os.environ["WSDIALECTS_SCALAR_STORES"] = "1" if scalar else "0"
    try:
        return wsdialects.compile(src, pipeline=pipe)
    finally:
        if old is None:
            del os.environ["WSDIALECTS_SCALAR_STORES"]
        else:
            os.environ["WSDIALECTS_SCALAR_STORES"] = old


MN = 8192  # M = N of the benchmark


def problem(torch, K: int, M: int = MN, N: int = MN) -> dict:
    """gemm.mlir's problem at K (seeded by K): fp16 `a` (M x K), `b` (N x K), `c` (M x N); `ref`, the
    product in float64 (cuBLAS's fp16 product can be bit-identical to ours, same wgmma k-order and
    fp32 accumulators, so comparing with it cannot fail; against the exact product both show their
    fp16-output rounding, ~3e-4, and a wrong kernel shows); `rel(out)`, the relative error against
    it; `flops`; `launch(k)`, a call of compiled variant `k` on its grid (a persistent kernel launches
    min(programs, tiles) itself); `cublas()`, torch.matmul into `c`."""
    torch.manual_seed(K)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double().T
    ref_norm = ref.norm()
    grid = -(-M // 128) * -(-N // 256)
    return {"a": a, "b": b, "c": c, "ref": ref, "flops": 2.0 * M * N * K, "grid": grid,
            "rel": lambda out: ((out.double() - ref).norm() / ref_norm).item(),
            "launch": lambda k: (lambda: k[grid](a, b, c, M, N, K, N)),
            "cublas": lambda: torch.matmul(a, b.T, out=c)}
