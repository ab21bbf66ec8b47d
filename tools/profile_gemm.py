"""One launch of a GEMM variant of bench/gemm.py (M = N = 8192), for ncu / SASS inspection:

    ncu --kernel-name regex:matmul --launch-skip 1 --launch-count 1 --section SpeedOfLight \\
        python tools/profile_gemm.py [--variant 'ws-schedule{arch=h100},ws-hopper'] [--K 4096] [--sass DIR]

A variant is a bench/gemm.py variant (bench/gemm_variants.py). With --sass DIR the kernel's PTX is
written to DIR. Launches twice (a warm-up, then the profiled one)."""

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
from gemm_variants import compile_variant  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--variant", default="ws-hopper")
ap.add_argument("--K", type=int, default=4096)
ap.add_argument("--sass", default="")
args = ap.parse_args()
k = compile_variant(args.variant)
if args.sass:
    Path(args.sass).mkdir(parents=True, exist_ok=True)
    (Path(args.sass) / "gemm.ptx").write_text(k.ptx)
M = N = 8192
a = torch.randn(M, args.K, device="cuda", dtype=torch.float16)
b = torch.randn(N, args.K, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
for _ in range(2):
    k[(M // 128) * (N // 256)](a, b, c, M, N, args.K, N)
torch.cuda.synchronize()
print("done", c.float().abs().mean().item())
