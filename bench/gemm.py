"""fp16 GEMM, M = N = 8192, K = 256..16384: wsdialects (ws-hopper) vs torch.matmul
(cuBLAS) vs a Triton matmul (the tutorial's) vs a Triton TMA-persistent matmul (device-side
tensor descriptors), all in one run, `triton.testing.do_bench` medians. Both Triton kernels live in
bench/triton_peers.py (shared with bench/gemm_kinds.py).

    python bench/gemm.py [--out DIR] [--variants 'PIPE;PIPE;...']

Each variant is a ws-opt pipeline for examples/kernels/gemm.mlir; one with persistent=true
is launched on one program per SM.

Prints a table and writes DIR/<date>-gemm-<device>.md (default bench/results).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402
from gemm_variants import compile_variant, problem  # noqa: E402
from triton_peers import best_config, ensure_allocator, tma_persistent_matmul, triton_mm  # noqa: E402


CONFIGS = [(128, 256, 64, 4, 8), (128, 128, 64, 4, 4), (128, 256, 64, 3, 8)]
TMA_CONFIGS = [(128, 256, 64, 3, 8), (128, 256, 64, 4, 8), (128, 128, 64, 4, 8), (128, 128, 64, 3, 4)]


def triton_mm_tma_persistent(a, b, c, cfg):
    """bench/triton_peers.py's TMA-persistent kernel, plain epilogue; cfg = (BM, BN, BK, stages, warps)."""
    BM, BN, BK, st, w = cfg
    tma_persistent_matmul(a, b, c, (BM, BN, BK), st, w)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--variants", default="ws-hopper;ws-hopper{persistent=true};ws-partition,ws-distribute{depth=3}")
    ap.add_argument("--ks", default="256,512,1024,2048,4096,8192,16384")
    ap.add_argument("--date", default=datetime.date.today().isoformat(), help="date written in the results")
    ap.add_argument("--name", default="", help="suffix of the results file name")
    args = ap.parse_args()
    from triton.testing import do_bench

    ensure_allocator()  # older Triton: none, the TMA-persistent configs fail and are reported

    dev = torch.cuda.get_device_name()
    slug = "h100" if "H100" in dev else "h200" if "H200" in dev else dev.lower().replace(" ", "-")
    variants = [v.strip() for v in args.variants.split(";") if v.strip()]
    compiled = [(v, compile_variant(v)) for v in variants]
    rows = []
    for K in [int(k) for k in args.ks.split(",")]:
        g = problem(torch, K)
        a, b, c, flops = g["a"], g["b"], g["c"], g["flops"]

        def rel(out):
            e = g["rel"](out)
            if not e < 1e-2:  # NaN (an element never written) or a wrong result
                print(f"K={K}: rel. error {e:.3e}: WRONG RESULT", file=sys.stderr, flush=True)
            return e

        c.fill_(float("nan"))
        g["cublas"]()
        err_cb = rel(c)
        t_ws, errs = [], []
        for v, ws in compiled:
            ours = g["launch"](ws)
            c.fill_(float("nan"))
            ours()
            torch.cuda.synchronize()
            errs.append(rel(c))
            t_ws.append(do_bench(ours, warmup=25, rep=200, return_mode="median"))
        t_cb = do_bench(g["cublas"], warmup=25, rep=200, return_mode="median")
        best, _ = best_config(CONFIGS, lambda cfg: triton_mm(a, b, c, cfg), label="triton")

        def check_tma(cfg):
            c.fill_(float("nan"))
            triton_mm_tma_persistent(a, b, c, cfg)
            torch.cuda.synchronize()
            return rel(c)

        best_tma, _ = best_config(TMA_CONFIGS, lambda cfg: triton_mm_tma_persistent(a, b, c, cfg), check_tma,
                                  label="triton TMA-persistent")
        err_tma = best_tma[2] if best_tma else float("nan")
        tf = lambda t: flops / t / 1e9  # noqa: E731  (t in ms -> TFLOP/s)
        tma = (tf(best_tma[0]), best_tma[1]) if best_tma else (float("nan"), None)
        row = (K, [tf(t) for t in t_ws], tf(t_cb), tf(best[0]), best[1], errs, err_cb, tma, err_tma)
        rows.append(row)
        ws_txt = "  ".join(f"ws[{i}] {x:6.1f} ({x / row[2]:.2f}x cuBLAS, {x / row[3]:.2f}x Triton, "
                           f"{x / tma[0]:.2f}x Triton TMA-persistent, err {e:.1e})"
                           for i, (x, e) in enumerate(zip(row[1], errs)))
        print(f"K={K:6d}  cuBLAS {row[2]:6.1f} (err {err_cb:.1e})  Triton {row[3]:6.1f}  "
              f"Triton TMA-persistent {tma[0]:6.1f} (err {err_tma:.1e})  {ws_txt}", flush=True)
        del a, b, c, g
    date = args.date
    var_txt = "; ".join(f"ws[{i}] = `{v}`" for i, v in enumerate(variants))
    lines = [f"# fp16 GEMM, M = N = 8192: wsdialects vs cuBLAS vs Triton ({dev}, {date})", "",
             f"Command: `python bench/gemm.py` (via `tools/device_run.sh`; one run; `triton.testing.do_bench` "
             "median, 25 ms warm-up, 200 ms repeats; random fp16 inputs, fp32 accumulation, fp16 output; "
             "rel. error = ||C - A·Bᵀ|| / ||A·Bᵀ|| against a float64 product on the GPU, every element "
             "poisoned with NaN before the run; fp16 output rounding alone gives ~3e-4).", "",
             f"wsdialects: `examples/kernels/gemm.mlir` (128x256x64 tiles; 1 TMA producer warp group at 40 registers + "
             f"2 wgmma consumer warp groups at 232, mbarrier full/empty ring), pipelines {var_txt}; persistent "
             f"variants launch min(132 x ctas-per-sm, tiles) programs. cuBLAS: `torch.matmul`. Triton: the tutorial matmul, best of "
             f"configs (BM, BN, BK, stages, warps) {CONFIGS}; Triton TMA-persistent (`bench/triton_peers.py`, shared with "
             f"`bench/gemm_kinds.py`): one program per SM, device-side "
             f"tensor descriptors for A, B and C (`tl.make_tensor_descriptor`), best of {TMA_CONFIGS}.", "",
             f"torch {torch.__version__}, triton {triton.__version__}.", "",
             "| K | cuBLAS | Triton (best cfg) | Triton TMA-persistent (best cfg) | "
             + " | ".join(f"ws[{i}] TFLOP/s (x cuBLAS, x Triton, x TMA-persistent)" for i in range(len(variants)))
             + " | rel. error ws (max) | rel. error cuBLAS | rel. error TMA-persistent |",
             "|---|---|---|---|" + "---|" * len(variants) + "---|---|---|"]
    for K, ws_tf, cb, tr, cfg, errs, err_cb, tma, err_tma in rows:
        cells = " | ".join(f"{x:.1f} ({x / cb:.2f}, {x / tr:.2f}, {x / tma[0]:.2f})" for x in ws_tf)
        lines.append(f"| {K} | {cb:.1f} | {tr:.1f} {cfg} | {tma[0]:.1f} {tma[1]} | {cells} | {max(errs):.1e} | "
                     f"{err_cb:.1e} | {err_tma:.1e} |")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    f = out / f"{date}-gemm-{slug}{args.name}.md"
    f.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {f}")


if __name__ == "__main__":
    main()
