"""A small GEMM run for compute-sanitizer (racecheck / synccheck / memcheck):
    compute-sanitizer --tool racecheck python test/gpu/small_gemm.py"""
import sys
from pathlib import Path

import torch

import wsdialects

ROOT = Path(__file__).resolve().parents[2]
k = wsdialects.compile(ROOT / "examples" / "kernels" / "gemm.mlir", pipeline="ws-hopper", depth=2, mma_depth=1)
M, N, K = 200, 300, 456
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(N, K, device="cuda", dtype=torch.float16)
c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
k[((M + 127) // 128) * ((N + 255) // 256)](a, b, c, M, N, K, N)
torch.cuda.synchronize()
err = ((c.double() - (a.double() @ b.double().T)).norm() / (a.double() @ b.double().T).norm()).item()
print(f"small gemm {M}x{N}x{K}: rel err {err:.2e}")
sys.exit(0 if err < 2e-3 else 1)
