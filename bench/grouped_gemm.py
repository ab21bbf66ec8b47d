"""Grouped GEMM (Mixture-of-Experts shapes, Tawa Fig. 9), bf16, N = K = 4096, G = 4, 8, 16, 32
groups whose M_g are multiples of 512 in [512, 4096] drawn with a fixed seed: wsdialects
(`grouped_gemm(a, b, offs)`, one persistent launch, wsdialects/runtime/grouped.py) against
`torch._grouped_mm` (one launch, offsets on the device, as ours) and a loop of `torch.matmul`
over the groups (cuBLAS, sizes known to the host), in one run, `triton.testing.do_bench`
medians; TFLOP/s = 2·(sum M_g)·N·K / t. Also ours in the list form (`grouped_gemm(a_list,
b_list)`: the same problem as separate tensors, a descriptor per group and operand).

    python bench/grouped_gemm.py [--out DIR] [--groups 4,8,16,32] [--n 4096] [--k 4096] [--seed S]
                                 [--pipelines 'PIPE;PIPE'] [--dtype bf16|fp16] [--list 0|1] [--date D] [--name SUFFIX]
    python bench/grouped_gemm.py --dry-run   # no GPU: compiles our kernel per pipeline to PTX and says
                                             # what it would time (writes nothing unless --out)

Correctness first: ours (output poisoned with NaN) and each peer against float32 matmuls of the
same inputs; a relative error above 1e-2 (or a NaN) is printed as WRONG. Prints a table and
writes DIR/<date>-grouped-gemm-<device><name>.md (default bench/results).
"""

from __future__ import annotations

import argparse
import datetime
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from wsdialects.runtime import grouped  # noqa: E402

DTYPES = {"bf16": "bf16", "fp16": "f16"}
DEFAULT_PIPELINES = f"{grouped.PIPELINE};ws-hopper"


def group_sizes(G: int, seed: int) -> list[int]:
    """G sizes, multiples of 512 in [512, 4096], from a generator seeded with (seed, G)."""
    rng = random.Random(seed * 1000 + G)
    return [512 * rng.randint(1, 8) for _ in range(G)]


def flops(sizes, N: int, K: int) -> float:
    return 2.0 * sum(sizes) * N * K


def table(rows, args, pipelines, dev: str, versions: str) -> list[str]:
    ours = [f"ws ({i + 1})" for i in range(len(pipelines))] + (["ws list"] if args.list else [])
    lines = [f"# Grouped GEMM, {args.dtype}, N = {args.n}, K = {args.k}: wsdialects vs torch._grouped_mm and a loop "
             f"of torch.matmul ({dev}, {args.date})", "",
             f"Command: `python bench/grouped_gemm.py {' '.join(sys.argv[1:])}` (one run; `triton.testing.do_bench` "
             "median, 25 ms warm-up, 200 ms repeats; M_g multiples of 512 in [512, 4096] drawn with seed "
             f"{args.seed}; TFLOP/s = 2·(sum M_g)·N·K / t; rel. error against float32 matmuls, ours poisoned with "
             "NaN before the run).", "",
             "wsdialects: `grouped_gemm(a, b, offs)` (a [sum M_g, K], b [G, N, K], int32 offsets on the device; "
             "128x256x64 tiles, one persistent launch over all groups' tiles). "
             + "; ".join(f"ws ({i + 1}) = `{p}`" for i, p in enumerate(pipelines)) + ". "
             + ("ws list: `grouped_gemm(a_list, b_list)` on the same problem as separate tensors (one TMA "
                f"descriptor per group and operand, `!tile.descs`; `{pipelines[0]}`). " if args.list else "")
             + "torch._grouped_mm: `torch._grouped_mm(a, b.transpose(-2, -1), offs)`. loop: `torch.matmul(a_g, b[g].T, "
             "out=c_g)` per group.", "", versions, "",
             "| G | M_g | sum M_g | _grouped_mm | loop | " + " | ".join(ours) + " | best ws / _grouped_mm | "
             "best ws / loop | max rel. err ws |",
             "|---|---|---|---|---|" + "---|" * len(ours) + "---|---|---|"]
    for G, sizes, res in rows:
        g = lambda k: res[k][0] if k in res else float("nan")  # noqa: E731
        best = max((g(o) for o in ours if o in res), default=float("nan"))
        err = max((res[o][1] for o in ours if o in res), default=float("nan"))
        shown = ",".join(str(m // 512) for m in sizes)
        lines.append(f"| {G} | 512 x [{shown}] | {sum(sizes)} | {g('grouped_mm'):.1f} | {g('loop'):.1f} | "
                     + " | ".join(f"{g(o):.1f}" for o in ours)
                     + f" | {best / g('grouped_mm'):.2f} | {best / g('loop'):.2f} | {err:.1e} |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None, help="folder for the results table (default bench/results; "
                                                "with --dry-run nothing is written unless given)")
    ap.add_argument("--groups", default="4,8,16,32")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--pipelines", default=DEFAULT_PIPELINES, help="our kernel's pipelines, ';'-separated")
    ap.add_argument("--list", type=int, default=1, help="also time the list form (1) or not (0)")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--name", default="")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: compile our kernel and say what would run")
    args = ap.parse_args(argv)
    groups = [int(x) for x in args.groups.split(",")]
    pipelines = [p for p in args.pipelines.split(";") if p]
    N, K = args.n, args.k
    compiled = {}
    for p in pipelines:
        try:
            grouped.compiled_kernel(DTYPES[args.dtype], p)
            if args.list and p == pipelines[0]:
                grouped.compiled_list_kernel(DTYPES[args.dtype], p)
            compiled[p] = None
        except Exception as e:  # noqa: BLE001 - report and go on
            compiled[p] = f"{type(e).__name__}: {e}"
            print(f"ours through {p} does not compile: {compiled[p]}", file=sys.stderr)

    if args.dry_run:
        rows = []
        for G in groups:
            sizes = group_sizes(G, args.seed)
            print(f"would time G={G} M_g={sizes}: {flops(sizes, N, K) / 1e12:.2f} TFLOP; ours " +
                  ", ".join(f"{p}: {'compiled' if why is None else 'n/a (' + why.splitlines()[0] + ')'}"
                            for p, why in compiled.items()))
            rows.append((G, sizes, {}))
        if args.out:
            write(table(rows, args, pipelines, "dry run, no GPU", "no GPU: nothing timed"), args, "dry-run")
        return 0

    import torch
    import triton
    from triton.testing import do_bench

    dev = torch.cuda.get_device_name()
    slug = "h100" if "H100" in dev else "h200" if "H200" in dev else dev.lower().replace(" ", "-")
    bench = lambda f: do_bench(f, warmup=25, rep=200, return_mode="median")  # noqa: E731
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    rows = []
    for G in groups:
        sizes = group_sizes(G, args.seed)
        torch.manual_seed(G)
        S = sum(sizes)
        a = torch.randn(S, K, device="cuda", dtype=dtype)
        b = (torch.randn(G, N, K, device="cuda") * K ** -0.5).to(dtype)
        offs = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
        bounds = [0, *torch.tensor(sizes).cumsum(0).tolist()]
        ref = torch.empty(S, N, device="cuda", dtype=torch.float32)
        for g in range(G):
            torch.matmul(a[bounds[g]:bounds[g + 1]].float(), b[g].float().T, out=ref[bounds[g]:bounds[g + 1]])
        tf = lambda t, sizes=sizes: flops(sizes, N, K) / t / 1e9  # noqa: E731

        def err(c, label, G=G, ref=ref):
            e = ((c.float() - ref).norm() / ref.norm()).item()
            if not e < 1e-2:
                print(f"{label} G={G}: rel. error {e:.2e}: WRONG", file=sys.stderr)
            return e

        res = {}
        c = torch.empty(S, N, device="cuda", dtype=dtype)
        if hasattr(torch, "_grouped_mm"):
            try:
                f = lambda: torch._grouped_mm(a, b.transpose(-2, -1), offs)  # noqa: E731
                res["grouped_mm"] = (tf(bench(f)), err(f(), "torch._grouped_mm"))
            except Exception as e:  # noqa: BLE001
                print(f"torch._grouped_mm: {type(e).__name__}: {e}", file=sys.stderr)

        def loop(c=c, a=a, b=b, bounds=bounds, G=G):
            for g in range(G):
                torch.matmul(a[bounds[g]:bounds[g + 1]], b[g].T, out=c[bounds[g]:bounds[g + 1]])

        res["loop"] = (tf(bench(loop)), (loop(), err(c, "loop"))[1])
        for i, p in enumerate(pipelines):
            if compiled[p] is not None:
                continue
            out = torch.full((S, N), float("nan"), device="cuda", dtype=dtype)  # poisoned
            run = lambda out=out, p=p: grouped.grouped_gemm(a, b, offs, out=out, pipeline=p)  # noqa: E731
            run()
            torch.cuda.synchronize()
            e = err(out, f"ws ({p})")
            res[f"ws ({i + 1})"] = (tf(bench(run)), e)
        if args.list and compiled.get(pipelines[0]) is None:
            # the list form: the same problem as separate tensors (views), one descriptor per group
            out = torch.full((S, N), float("nan"), device="cuda", dtype=dtype)
            a_list = [a[bounds[g]:bounds[g + 1]] for g in range(G)]
            b_list = [b[g] for g in range(G)]
            c_list = [out[bounds[g]:bounds[g + 1]] for g in range(G)]
            run = lambda: grouped.grouped_gemm(a_list, b_list, out=c_list, pipeline=pipelines[0])  # noqa: E731
            run()
            torch.cuda.synchronize()
            res["ws list"] = (tf(bench(run)), err(out, "ws list"))
        rows.append((G, sizes, res))
        print(f"G={G:2d} sum M={S:6d}  " + "  ".join(f"{k_} {v_[0]:6.1f} (err {v_[1]:.1e})" for k_, v_ in res.items()),
              flush=True)
        torch.cuda.empty_cache()
    versions = f"torch {torch.__version__}, triton {triton.__version__}."
    write(table(rows, args, pipelines, dev, versions), args, slug)
    return 0


def write(lines: list[str], args, slug: str) -> None:
    out = Path(args.out or ROOT / "bench" / "results")
    out.mkdir(parents=True, exist_ok=True)
    f = out / f"{args.date}-grouped-gemm-{slug}{args.name}.md"
    f.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {f}")


if __name__ == "__main__":
    raise SystemExit(main())
