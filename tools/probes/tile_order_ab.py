"""A/B of the bias + GELU GEMM kind with its 2-D grid (row blocks fastest, as the hardware
launches them) against the same kernel decoding a 1-D grid in groups of 8 row blocks
(bench/kernels/grouped/): does an L2-friendly tile order pay for this L2-bound kernel?

    python tools/probes/tile_order_ab.py [--ks 1024,4096,16384] [--variants 'ws-hopper;ws-hopper{persistent=true}']

Needs torch, triton (do_bench) and a GPU; every output is checked against torch."""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from triton.testing import do_bench

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ks", default="1024,4096,16384")
ap.add_argument("--variants", default="ws-hopper;ws-hopper{persistent=true}")
args = ap.parse_args()
M = N = 8192
kernels = {"2-D grid": ROOT / "test/Inputs/kernels/gemm_kinds/bias_gelu_gemm.mlir",
           "grouped 1-D grid": ROOT / "bench/kernels/grouped/bias_gelu_gemm.mlir"}
variants = [v for v in args.variants.split(";") if v]
built = {(name, v): wsdialects.compile(path, pipeline=v) for name, path in kernels.items() for v in variants}
print(f"# bias + GELU 128x128 GEMM, M = N = {M}, tile order A/B ({torch.cuda.get_device_name()})\n")
print("| K | torch F.gelu(F.linear) | " + " | ".join(f"{n}, `{v}`" for n, v in built) + " |")
print("|---|---|" + "---|" * len(built))
for K in [int(k) for k in args.ks.split(",")]:
    torch.manual_seed(K)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = (torch.randn(N, K, device="cuda") * K ** -0.5).to(torch.float16)
    bias = torch.randn(N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ref = F.gelu(F.linear(a.float(), b.float(), bias.float()), approximate="tanh")
    flops = 2.0 * M * N * K
    tf = lambda t: flops / t / 1e9  # noqa: E731
    t_torch = tf(do_bench(lambda: F.gelu(F.linear(a, b, bias), approximate="tanh"), warmup=25, rep=150))
    cells = []
    for (name, v), k in built.items():
        grid = (M // 128, N // 128) if name == "2-D grid" else ((M // 128) * (N // 128),)
        run = lambda k=k, grid=grid: k[grid](a, b, bias, c, M, N, K, N)  # noqa: E731
        c.fill_(float("nan"))
        run()
        torch.cuda.synchronize()
        err = ((c.float() - ref).norm() / ref.norm()).item()
        if not err < 1e-2:
            print(f"{name} {v} K={K}: rel. error {err:.2e}: WRONG", file=sys.stderr)
        t = tf(do_bench(run, warmup=25, rep=150))
        cells.append(f"{t:.1f} ({t / t_torch:.2f}x, err {err:.1e})")
    print(f"| {K} | {t_torch:.1f} | " + " | ".join(cells) + " |", flush=True)
