"""How much does one measurement of examples/kernels/gemm.mlir vary within one process? Times the
variants and cuBLAS alternately, round after round, at each K of a list (a K may repeat), and prints
every round's ratio, so a slow round shows whether it is ours or the card's.

    python tools/probes/repeat_ab.py --variants 'ws-hopper{persistent=true}' --ks 256,16384,256 --rounds 4
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="ws-hopper{persistent=true}")
    ap.add_argument("--ks", default="256,16384,256")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--rep", type=int, default=100, help="do_bench repetition time, ms")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    import torch
    from triton.testing import do_bench

    from gemm_variants import compile_variant, problem

    variants = [v for v in args.variants.split(";") if v]
    ws = [compile_variant(v) for v in variants]
    dev = torch.cuda.get_device_name()
    lines = [f"# gemm.mlir, repeated rounds in one process ({dev}, {datetime.date.today()})", "",
             f"Command: `python tools/probes/repeat_ab.py --variants '{args.variants}' --ks {args.ks} --rounds "
             f"{args.rounds} --rep {args.rep}` (`triton.testing.do_bench` median, 25 ms warm-up, {args.rep} ms; "
             "per round: each variant, then cuBLAS).", "",
             "| K | round | cuBLAS TFLOP/s | " + " | ".join(f"ws[{i}] x cuBLAS" for i in range(len(ws))) + " |",
             "|---|---|---|" + "---|" * len(ws)]
    for i, v in enumerate(variants):
        lines.insert(3, f"ws[{i}] = `{v}`")
    summary = []
    for K in [int(k) for k in args.ks.split(",")]:
        g = problem(torch, K)
        ratios = [[] for _ in ws]
        for k in ws:
            g["c"].fill_(float("nan"))
            g["launch"](k)()
            torch.cuda.synchronize()
            err = g["rel"](g["c"])
            if not err < 1e-2:
                raise SystemExit(f"K={K}: rel. error {err:.2e}: WRONG RESULT")
        for r in range(args.rounds):
            ts = [do_bench(g["launch"](k), warmup=25, rep=args.rep, return_mode="median") for k in ws]
            tc = do_bench(g["cublas"], warmup=25, rep=args.rep, return_mode="median")
            for i, t in enumerate(ts):
                ratios[i].append(tc / t)
            row = f"| {K} | {r} | {g['flops'] / tc / 1e9:.1f} | " + " | ".join(f"{tc / t:.3f}" for t in ts) + " |"
            print(row, flush=True)
            lines.append(row)
        summary.append(f"K {K}: " + "; ".join(
            f"ws[{i}] median {statistics.median(x):.3f}, min {min(x):.3f}, max {max(x):.3f}" for i, x in enumerate(ratios)))
    text = "\n".join(lines + [""] + [f"- {s}" for s in summary]) + "\n"
    print(text)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / f"{datetime.date.today()}-gemm-repeat-rounds.md").write_text(text)


if __name__ == "__main__":
    main()
