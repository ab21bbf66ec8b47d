"""Host time of one launch through wsdialects' launcher (Python argument checks, descriptors, packing,
cuLaunchKernel) against the GPU time of the kernel, for examples/kernels/gemm.mlir at M = N = 8192:
if the host needs longer than the kernel runs, back-to-back launches (and do_bench) are host-bound.

    python tools/probes/launch_overhead.py --variants 'ws-hopper{persistent=true}' --ks 256,1024
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="ws-hopper{persistent=true};ws-hopper{persistent=true tma-store=false}")
    ap.add_argument("--ks", default="256")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--profile", action="store_true", help="cProfile the launches of the first variant")
    args = ap.parse_args()
    import torch
    from triton.testing import do_bench

    from gemm_variants import compile_variant, problem

    for v in [x for x in args.variants.split(";") if x]:
        k = compile_variant(v)
        for K in [int(x) for x in args.ks.split(",")]:
            launch = problem(torch, K)["launch"](k)
            for _ in range(5):
                launch()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.n):
                launch()
            host = (time.perf_counter() - t0) / args.n * 1e6
            torch.cuda.synchronize()
            gpu = do_bench(launch, warmup=25, rep=100, return_mode="median") * 1e3
            print(f"{v} K={K}: host {host:.1f} us per launch, do_bench {gpu:.1f} us", flush=True)
            if args.profile:
                pr = cProfile.Profile()
                pr.enable()
                for _ in range(args.n):
                    launch()
                pr.disable()
                torch.cuda.synchronize()
                pstats.Stats(pr).sort_stats("tottime").print_stats(14)
                args.profile = False


if __name__ == "__main__":
    main()
