"""Grouped GEMM (Mixture-of-Experts shapes, Tawa Fig. 9), bf16, N = K = 4096, G = 4, 8, 16, 32
groups whose M_g are multiples of 512 in [512, 4096] drawn with a fixed seed: wsdialects
(`grouped_gemm(a, b, offs)`, one persistent launch, wsdialects/runtime/grouped.py) in each of its
kernel forms (how a program walks the groups' tiles and how it stores them:
wsdialects/runtime/grouped_gemm_kernels.FORMS) under each pipeline, against `torch._grouped_mm`
(one launch, offsets on the device, as ours) and a loop of `torch.matmul` over the groups
(cuBLAS, sizes known to the host), in one run, `triton.testing.do_bench` medians; TFLOP/s =
2·(sum M_g)·N·K / t. Also ours in the list form (`grouped_gemm(a_list, b_list)`: the same
problem as separate tensors, a descriptor per group and operand).

    python bench/grouped_gemm.py [--out DIR] [--groups 4,8,16,32] [--variants 'FORM@PIPE;FORM@PIPE']
                                 [--forms F,F] [--pipelines 'PIPE;PIPE'] [--n 4096] [--k 4096] [--seed S]
                                 [--dtype bf16|fp16] [--list 0|1] [--date D] [--name SUFFIX]
    python bench/grouped_gemm.py --dry-run   # no GPU: compiles every (form, pipeline) to PTX and says
                                             # what it would time (writes nothing unless --out)

What is timed: --variants (form@pipeline pairs), or every form of --forms under every pipeline of
--pipelines where either is given, else DEFAULT_VARIANTS: each form under the default pipeline,
and the default form also under the team's split stores and under a team without turns.

Correctness first: every kernel's output poisoned with NaN, run once and compared with float32
matmuls of the same inputs (and so is each peer's); a relative error of 1e-2 or more (or a NaN) is
printed as WRONG and marked in the table. The table is rewritten after each G (a run cut short
keeps what it measured) to DIR/<date>-grouped-gemm-<device><name>.md (default bench/results).
About a minute on an H200 with the defaults (mostly compiling; each timing ~0.3 s).
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from wsdialects.runtime import grouped  # noqa: E402
from wsdialects.runtime import grouped_gemm_kernels as kernels  # noqa: E402

DTYPES = {"bf16": "bf16", "fp16": "f16"}
HANG_S = 30  # a kernel not finished after this long is taken for a deadlock (the largest runs in ~3 ms)
SPLIT = grouped.PIPELINE[:-1] + " team-stores=split}"  # each group of the team stores its own rows
NO_TURNS = "ws-hopper{cooperative=2 pingpong=false}"  # the team's groups issue their wgmma unordered
DEFAULT_VARIANTS = ";".join([*(f"{f}@{grouped.PIPELINE}" for f in kernels.FORMS),
                             f"{kernels.DEFAULT}@{SPLIT}", f"{kernels.DEFAULT}@{NO_TURNS}"])


def variants(forms: list[str], pipelines: list[str]) -> list[tuple[str, str]]:
    """(form, pipeline) pairs to time: every form under every pipeline, except that a pipeline
    differing from the first only in how the team stores through TMA is not run on a masked form
    (no TMA store there: the same kernel)."""
    out = []
    for f in forms:
        for i, p in enumerate(pipelines):
            if i and kernels.form(f).store == "masked" and p.replace(" team-stores=split", "") == pipelines[0]:
                continue
            out.append((f, p))
    return out


def parse_variants(text: str) -> list[tuple[str, str]]:
    """'form@pipeline;form@pipeline' -> [(form, pipeline)] (a pipeline may hold '@' and ';' only
    inside braces: none does)."""
    pairs = []
    for item in (x.strip() for x in text.split(";")):
        if item:
            f, sep, p = item.partition("@")
            if not sep or not p:
                raise ValueError(f"a variant is FORM@PIPELINE, got {item!r}")
            pairs.append((f, p))
    return pairs


def group_sizes(G: int, seed: int) -> list[int]:
    """G sizes, multiples of 512 in [512, 4096], from a generator seeded with (seed, G)."""
    rng = random.Random(seed * 1000 + G)
    return [512 * rng.randint(1, 8) for _ in range(G)]


def flops(sizes, N: int, K: int) -> float:
    return 2.0 * sum(sizes) * N * K


def table(rows, args, pairs, dev: str, versions: str) -> list[str]:
    ours = [f"ws {i + 1}" for i in range(len(pairs))] + (["ws list"] if args.list else [])
    legend = "; ".join(f"ws {i + 1} = {f} (`{kernels.form(f).name}`) under `{p}`" for i, (f, p) in enumerate(pairs))
    lines = [f"# Grouped GEMM, {args.dtype}, N = {args.n}, K = {args.k}: wsdialects vs torch._grouped_mm and a loop "
             f"of torch.matmul ({dev}, {args.date})", "",
             f"Command: `python bench/grouped_gemm.py {' '.join(sys.argv[1:])}` (one run; `triton.testing.do_bench` "
             "median, 25 ms warm-up, 200 ms repeats; M_g multiples of 512 in [512, 4096] drawn with seed "
             f"{args.seed}; TFLOP/s = 2·(sum M_g)·N·K / t; rel. error against float32 matmuls, every output poisoned "
             "with NaN before its checked run; WRONG: rel. error >= 1e-2 or NaN).", "",
             "wsdialects: `grouped_gemm(a, b, offs, form=F, pipeline=P)` (a [sum M_g, K], b [G, N, K], int32 offsets "
             "on the device; 128x256x64 tiles, one persistent launch over all groups' tiles). Forms "
             "(walk / order / store, wsdialects/runtime/grouped_gemm_kernels.py): walk `scan` = every tile scans the "
             "offsets from group 0, `groups` = a program walks the groups in turn (one load each), its tiles of a "
             "group strided by the programs; order `m` = M fastest in a group, `bandB` = bands of B rows of tiles; "
             "store `masked` = pointer stores clipped at the group's end, `tma` = a TMA store where the tile lies "
             f"in its group (masked for the group's last tile). Default: {kernels.DEFAULT} under `{grouped.PIPELINE}`. "
             + legend + ". "
             + ("ws list: `grouped_gemm(a_list, b_list)` on the same problem as separate tensors (one TMA "
                f"descriptor per group and operand, `!tile.descs`; `{grouped.PIPELINE}`). " if args.list else "")
             + "torch._grouped_mm: `torch._grouped_mm(a, b.transpose(-2, -1), offs)`. loop: `torch.matmul(a_g, b[g].T, "
             "out=c_g)` per group.", "", versions, "",
             "TFLOP/s:", "",
             "| G | M_g | sum M_g | _grouped_mm | loop | " + " | ".join(ours) + " | best ws | best ws / _grouped_mm | "
             "best ws / loop | max rel. err ws |",
             "|---|---|---|---|---|" + "---|" * len(ours) + "---|---|---|---|"]
    ratios = ["", "Each of ours over torch._grouped_mm:", "", "| G | " + " | ".join(ours) + " |",
              "|---|" + "---|" * len(ours)]
    for G, sizes, res in rows:
        g = lambda k: res[k][0] if k in res else float("nan")  # noqa: E731
        cell = lambda k: f"{g(k):.1f}" + (" WRONG" if k in res and not res[k][1] < 1e-2 else "")  # noqa: E731
        right = [o for o in ours if o in res and res[o][1] < 1e-2]
        best = max(right, key=g, default=None)
        err = max((res[o][1] for o in ours if o in res), default=float("nan"))
        shown = ",".join(str(m // 512) for m in sizes)
        b = g(best) if best else float("nan")
        lines.append(f"| {G} | 512 x [{shown}] | {sum(sizes)} | {cell('grouped_mm')} | {cell('loop')} | "
                     + " | ".join(cell(o) for o in ours)
                     + f" | {best or '-'} | {b / g('grouped_mm'):.3f} | {b / g('loop'):.3f} | {err:.1e} |")
        ratios.append(f"| {G} | " + " | ".join(f"{g(o) / g('grouped_mm'):.3f}" for o in ours) + " |")
    return lines + ratios


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None, help="folder for the results table (default bench/results; "
                                                "with --dry-run nothing is written unless given)")
    ap.add_argument("--groups", default="4,8,16,32")
    ap.add_argument("--variants", default=None, help="form@pipeline pairs, ';'-separated (default: DEFAULT_VARIANTS "
                                                     "unless --forms or --pipelines is given)")
    ap.add_argument("--forms", default=None, help=f"our kernel's forms, ','-separated, of: {', '.join(kernels.FORMS)} "
                                                  f"(with --pipelines: every pair; default all)")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--pipelines", default=None, help=f"our kernel's pipelines, ';'-separated (with --forms: every "
                                                      f"pair; default {grouped.PIPELINE})")
    ap.add_argument("--list", type=int, default=1, help="also time the list form (1) or not (0)")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--name", default="")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: compile our kernels and say what would run")
    args = ap.parse_args(argv)
    groups = [int(x) for x in args.groups.split(",")]
    try:
        if args.variants is None and args.forms is None and args.pipelines is None:
            args.variants = DEFAULT_VARIANTS
        if args.variants is not None:
            pairs = parse_variants(args.variants)
        else:
            forms = [f for f in (args.forms or ",".join(kernels.FORMS)).split(",") if f]
            pairs = variants(forms, [p for p in (args.pipelines or grouped.PIPELINE).split(";") if p])
        for f, _ in pairs:
            kernels.form(f)
    except ValueError as e:
        ap.error(str(e))
    N, K = args.n, args.k
    dt = DTYPES[args.dtype]
    compiled = {}
    for f, p in pairs:
        try:
            grouped.compiled_kernel(dt, p, f)
            compiled[f, p] = None
        except Exception as e:  # noqa: BLE001 - report and go on
            compiled[f, p] = f"{type(e).__name__}: {e}"
            print(f"ours in form {f} through {p} does not compile: {compiled[f, p]}", file=sys.stderr)
    if args.list:
        grouped.compiled_list_kernel(dt, grouped.PIPELINE)

    if args.dry_run:
        rows = []
        for G in groups:
            sizes = group_sizes(G, args.seed)
            print(f"would time G={G} M_g={sizes}: {flops(sizes, N, K) / 1e12:.2f} TFLOP; ours " +
                  ", ".join(f"{f} @ {p}: {'compiled' if why is None else 'n/a (' + why.splitlines()[0] + ')'}"
                            for (f, p), why in compiled.items()))
            rows.append((G, sizes, {}))
        if args.out:
            write(table(rows, args, pairs, "dry run, no GPU", "no GPU: nothing timed"), args, "dry-run")
        return 0

    import torch
    import triton
    from triton.testing import do_bench

    dev = torch.cuda.get_device_name()
    slug = "h100" if "H100" in dev else "h200" if "H200" in dev else dev.lower().replace(" ", "-")
    versions = f"torch {torch.__version__}, triton {triton.__version__}."
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
            return e if e == e else float("inf")

        res = {}

        def finish(label, G=G, sizes=sizes, res=res):
            """Wait for the GPU, at most HANG_S seconds: a kernel that has not finished by then (a
            deadlock) ends the run with what was measured so far written out."""
            done = torch.cuda.Event()
            done.record()
            start = time.monotonic()
            while not done.query():
                if time.monotonic() - start > HANG_S:
                    print(f"{label} G={G}: not finished after {HANG_S} s: HANG; ending the run", file=sys.stderr)
                    write(table([*rows, (G, sizes, res)], args, pairs, dev, versions), args, slug)
                    sys.stdout.flush()
                    os._exit(3)
                time.sleep(1e-3)

        out = torch.empty(S, N, device="cuda", dtype=dtype)
        if hasattr(torch, "_grouped_mm"):
            try:
                f = lambda: torch._grouped_mm(a, b.transpose(-2, -1), offs)  # noqa: E731
                res["grouped_mm"] = (tf(bench(f)), err(f(), "torch._grouped_mm"))
            except Exception as e:  # noqa: BLE001
                print(f"torch._grouped_mm: {type(e).__name__}: {e}", file=sys.stderr)

        def loop(c=out, a=a, b=b, bounds=bounds, G=G):
            for g in range(G):
                torch.matmul(a[bounds[g]:bounds[g + 1]], b[g].T, out=c[bounds[g]:bounds[g + 1]])

        out.fill_(float("nan"))
        loop()
        res["loop"] = (tf(bench(loop)), err(out, "loop"))
        for i, (f, p) in enumerate(pairs):
            if compiled[f, p] is not None:
                continue
            label = f"ws {i + 1} ({f} @ {p})"
            run = lambda f=f, p=p: grouped.grouped_gemm(a, b, offs, out=out, pipeline=p, form=f)  # noqa: E731
            out.fill_(float("nan"))  # poisoned: a tile not written stays NaN
            try:
                run()
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"{label}: {type(e).__name__}: {e}", file=sys.stderr)
                continue
            finish(label)
            e = err(out, label)
            res[f"ws {i + 1}"] = (tf(bench(run)), e)
        if args.list:
            # the list form: the same problem as separate tensors (views), one descriptor per group
            out.fill_(float("nan"))
            a_list = [a[bounds[g]:bounds[g + 1]] for g in range(G)]
            b_list = [b[g] for g in range(G)]
            c_list = [out[bounds[g]:bounds[g + 1]] for g in range(G)]
            run = lambda: grouped.grouped_gemm(a_list, b_list, out=c_list)  # noqa: E731
            run()
            finish("ws list")
            res["ws list"] = (tf(bench(run)), err(out, "ws list"))
        rows.append((G, sizes, res))
        print(f"G={G:2d} sum M={S:6d}  " + "  ".join(f"{k_} {v_[0]:6.1f} (err {v_[1]:.1e})" for k_, v_ in res.items()),
              flush=True)
        write(table(rows, args, pairs, dev, versions), args, slug, quiet=G != groups[-1])
        a = b = ref = out = None  # free them before the next G
        torch.cuda.empty_cache()
    return 0


def write(lines: list[str], args, slug: str, quiet: bool = False) -> None:
    out = Path(args.out or ROOT / "bench" / "results")
    out.mkdir(parents=True, exist_ok=True)
    f = out / f"{args.date}-grouped-gemm-{slug}{args.name}.md"
    f.write_text("\n".join(lines) + "\n")
    if not quiet:
        print("\n".join(lines))
        print(f"wrote {f}")


if __name__ == "__main__":
    raise SystemExit(main())
