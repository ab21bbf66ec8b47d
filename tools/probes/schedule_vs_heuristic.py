"""The solver's schedule against the heuristic pipeline, per kernel, in one process: each kernel
compiled with `ws-hopper` (the heuristic) and with the solver's schedule (`ws-schedule{arch=h100},
ws-hopper`), both checked once against a float32 torch reference (outputs NaN-filled first), then
timed with `triton.testing.do_bench` (median; 25 ms warm-up, 200 ms repeats).

    python tools/probes/schedule_vs_heuristic.py [NAME ...] [--out DIR] [--solver auto|live|stored]
        [--hopper 'ws-hopper{persistent=true}'] [--sizes 1] [--rep MS] [--warmup MS]
    python tools/probes/schedule_vs_heuristic.py --compile-only [NAME ...]   # no torch / GPU needed

Kernels: fused_mlp, staged_mlp and two_dots_shared_load by default, plus each NAME given (a file
stem of test/Inputs/kernels/, examples/kernels/ or test/Inputs/kernels/gemm_kinds/). Inputs,
grids and references come from test/gpu/more_kernels.py (PROBE: gemm, dual_dot, bias_gemm,
tma_store_gemm, relu_gemm, fp8_gemm besides the three) and, for the GEMM kinds, from
bench/gemm_kinds_specs.py (M = N = 8192, K = 4096 and 16384). Sizes (FLOPs count every dot):
  fused_mlp             rows M = 8192 (128 programs: one wave) and 32768; H = 4096 and 16384
  staged_mlp            ONE program (no program_id): n = 1024 and 8192 iterations of 64 hidden
                        rows each (a one-SM latency figure; W1, W2 8 and 64 MB each)
  two_dots_shared_load  M = N = 8192 (4096 tiles of 128 x 128), K = 4096 and 16384
  the other GEMMs       M = N = 8192, K = 4096 and 16384

The solver's schedule (--solver): `live` runs ws-schedule (needs OR-Tools), `stored` compiles
the schedule kept as IR in test/Inputs/kernels/scheduled/ (or gemm_kinds/scheduled/) with
--hopper; `auto` (default) is live where OR-Tools imports, else stored. The table says which.
tools/resolve_stored.py's KEPT schedules are an earlier solver's choice (two_dots_shared_load:
the dots on different warp groups; today's solver plans a cooperative team), noted as such.

Prints a markdown table (kernel, size, heuristic and ws-schedule TFLOP/s and us, their ratio, the
largest error of the two, whether the two PTX texts are byte-identical) and, with --out DIR,
writes DIR/<date>-schedule-vs-heuristic-<device>.md (rewritten after every kernel).
--compile-only compiles every kernel x pipeline here (with WSDIALECTS_PTX_CACHE set it fills the
PTX cache a GPU machine whose llvmlite lacks sm_90a reads; stored and, where OR-Tools imports,
live schedules both) and prints threads, shared memory, ptxas's registers / spills (ptxas on
PATH) and the PTX identity. Run from the repository root with the repository on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "bench", ROOT / "tools", ROOT / "test" / "gpu"):
    sys.path.insert(0, str(p))
import wsdialects  # noqa: E402
import more_kernels as mk  # noqa: E402
from gemm_kinds import ptxas_report  # noqa: E402
from gemm_kinds_specs import KINDS, MN  # noqa: E402
from resolve_stored import KEPT  # noqa: E402

KERN = ROOT / "test" / "Inputs" / "kernels"
GK = KERN / "gemm_kinds"
DIRS = [KERN, ROOT / "examples" / "kernels", GK]
DEFAULT = ["fused_mlp", "staged_mlp", "two_dots_shared_load"]
SOLVER = "ws-schedule{arch=h100},"
BAD = 1e-2  # the GEMM kinds' bound of a right result (bench/gemm_kinds.py's); the others' is test/gpu's
KIND_KS = [4096, 16384]


def have_ortools() -> bool:
    try:
        import ortools  # noqa: F401
    except ImportError:
        return False
    return True


def source(name: str) -> Path:
    for d in DIRS:
        if (d / f"{name}.mlir").is_file():
            return d / f"{name}.mlir"
    raise SystemExit(f"no kernel {name}.mlir in " + ", ".join(str(d.relative_to(ROOT)) for d in DIRS))


def stored(path: Path) -> Path:
    """The solver's schedule of `path` kept as IR (examples' kernels keep theirs in test/Inputs)."""
    return (GK if path.parent == GK else KERN) / "scheduled" / path.name


def kind_of(name: str):
    return next((k for k in KINDS.values() if k.file == f"{name}.mlir"), None)


def sizes_of(name: str) -> list[tuple]:
    if name in mk.PROBE:
        return mk.PROBE[name][1]
    if kind_of(name):
        return [(K,) for K in KIND_KS]
    raise SystemExit(f"{name}: no inputs known (test/gpu/more_kernels.py PROBE: {', '.join(mk.PROBE)}; "
                     f"GEMM kinds: {', '.join(k.file[:-5] for k in KINDS.values())})")


def make_case(torch, name: str, size: tuple):
    if name in mk.PROBE:
        return mk.PROBE[name][0](torch, *size)
    kind = kind_of(name)
    d = kind.setup(torch, size[0])
    case = mk.Case(f"{name} {kind.problem} K={size[0]}", None, [], d["out"], d["ref"], kind.flops(size[0]),
                   BAD, "bench/gemm_kinds.py's")
    case.launcher = d["launcher"]
    return case


def size_text(name: str, size: tuple) -> str:
    if name == "fused_mlp":
        return f"M={size[0]} H={size[1]}"
    if name == "staged_mlp":
        return f"n={size[0]} (1 program)"
    if len(size) == 3:
        return f"M={size[0]} N={size[1]} K={size[2]}"
    return f"M=N={MN} K={size[0]}" if kind_of(name) else str(size)


def schedule_pipelines(name: str, mode: str, hopper: str) -> list[tuple[str, Path, str]]:
    """[(label, file, pipeline)] of the solver's schedule: live and / or stored per `mode`."""
    path = source(name)
    out = []
    if mode in ("live", "auto", "both") and have_ortools():
        out.append(("live", path, SOLVER + hopper))
    elif mode == "live":
        raise SystemExit("--solver live needs OR-Tools (pip install ortools)")
    if (mode in ("stored", "both") or (mode == "auto" and not out)) and stored(path).is_file():
        label = "stored (KEPT: an earlier solver's choice)" if name in KEPT else "stored"
        out.append((label, stored(path), hopper))
    return out


def compile_one(path: Path, pipeline: str):
    t0 = time.time()
    k = wsdialects.compile(path, pipeline=pipeline)
    return k, time.time() - t0


def kernel_info(k) -> str:
    info = next(iter(k.kernels.values()))
    return f"{info.num_threads} threads, {info.smem_bytes} B shared memory"


def compile_only(names, hopper) -> int:
    bad = 0
    for name in names:
        path = source(name)
        runs = [("heuristic", path, hopper)] + [(f"ws-schedule {lab}", f, p)
                                                for lab, f, p in schedule_pipelines(name, "both", hopper)]
        ptx = {}
        for label, f, pipe in runs:
            try:
                k, dt = compile_one(f, pipe)
            except Exception as e:  # noqa: BLE001 - reported, the others go on
                bad += 1
                print(f"{name} {label} `{pipe}`: DOES NOT COMPILE: {type(e).__name__}: {e}", flush=True)
                continue
            ptx[label] = k.ptx
            print(f"{name} {label} `{pipe}` ({f.relative_to(ROOT)}): {dt:.1f} s, {kernel_info(k)}; "
                  f"ptxas: {ptxas_report(k.ptx)}", flush=True)
        for label in [lab for lab in ptx if lab != "heuristic"]:
            if "heuristic" in ptx:
                same = "byte-identical to" if ptx[label] == ptx["heuristic"] else "differs from"
                print(f"{name}: ws-schedule {label[12:]} PTX {same} the heuristic's", flush=True)
    return 1 if bad else 0


# ----------------------------------------------------------------------------- timing
def time_kernel(torch, bench, name, sched, hopper, nsizes) -> dict:
    """Compile both, then per size: check once, time. Errors are recorded, not raised."""
    res = {"name": name, "rows": [], "notes": []}
    path = source(name)
    comp = {}
    for who, f, pipe in [("heuristic", path, hopper)] + ([("ws-schedule",) + sched[1:]] if sched else []):
        try:
            k, dt = compile_one(f, pipe)
            res["notes"].append(f"{who}: `{pipe}` on {f.relative_to(ROOT)}: {dt:.1f} s to compile, {kernel_info(k)}; "
                                f"ptxas: {ptxas_report(k.ptx)}")
            comp[who] = k
        except Exception as e:  # noqa: BLE001
            res["notes"].append(f"{who}: `{pipe}` on {f.relative_to(ROOT)} DOES NOT COMPILE: {type(e).__name__}: {e}")
            print(f"{name} {who}: does not compile: {e}", file=sys.stderr, flush=True)
    if not sched:
        res["notes"].append("no solver schedule: no OR-Tools and no stored schedule")
    res["source"] = sched[0] if sched else "-"
    if len(comp) == 2:
        res["same_ptx"] = comp["heuristic"].ptx == comp["ws-schedule"].ptx
    for size in sizes_of(name)[:nsizes]:
        row = {"size": size_text(name, size)}
        res["rows"].append(row)
        try:
            case = make_case(torch, name, size)
        except Exception as e:  # noqa: BLE001 - e.g. out of memory
            row["error"] = f"setup: {type(e).__name__}: {e}"[:300]
            continue
        row["flops"] = case.flops
        for who, k in comp.items():
            try:
                case.run(k)
                torch.cuda.synchronize()
                rel, mx, bad = case.error()
                row[who] = {"rel": rel, "max": mx, "bad": bad, "ok": not bad and rel <= case.tol}
                if not row[who]["ok"]:
                    print(f"{name} {row['size']} {who}: rel. error {rel:.2e} {bad}: WRONG RESULT", file=sys.stderr,
                          flush=True)
                row[who]["ms"] = bench(case.launcher(k))
            except Exception as e:  # noqa: BLE001 - a broken CUDA context fails what follows too
                row[who] = {"error": f"{type(e).__name__}: {e}"[:300]}
                print(f"{name} {row['size']} {who}: {row[who]['error']}", file=sys.stderr, flush=True)
        print(f"{name} {row['size']}: " + "  ".join(
            f"{w} {row[w]['ms'] * 1e3:.1f} us" for w in comp if "ms" in row.get(w, {})), flush=True)
        del case
        torch.cuda.empty_cache()
    return res


def cell(row, who) -> str:
    c = row.get(who)
    if c is None:
        return "-"
    if "ms" not in c:
        return "failed" if "error" in c else "-"
    wrong = "" if c["ok"] else " WRONG"
    tf = row["flops"] / c["ms"] / 1e9
    return f"{tf:.{1 if tf >= 10 else 2}f} ({c['ms'] * 1e3:.0f} us){wrong}"


def table(results) -> list[str]:
    head = ["kernel", "size", "heuristic TFLOP/s (us)", "ws-schedule TFLOP/s (us)", "ws-schedule / heuristic",
            "max rel. error", "max abs. error / max abs(ref)", "PTX byte-identical", "schedule source"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        same = {True: "yes", False: "no"}.get(r.get("same_ptx"), "-")
        for row in r["rows"]:
            if "error" in row:
                lines.append(f"| {r['name']} | {row['size']} | {row['error']} |" + " |" * (len(head) - 3))
                continue
            h, s = row.get("heuristic", {}), row.get("ws-schedule", {})
            ratio = f"{h['ms'] / s['ms']:.2f}" if "ms" in h and "ms" in s else "-"
            errs = [c for c in (h, s) if "rel" in c]
            rel = max((c["rel"] for c in errs), default=None)
            mx = max((c["max"] for c in errs), default=None)
            bads = "; ".join(c["bad"] for c in errs if c["bad"])
            lines.append(f"| {r['name']} | {row['size']} | {cell(row, 'heuristic')} | {cell(row, 'ws-schedule')} | "
                         f"{ratio} | {'-' if rel is None else f'{rel:.1e}'}{' ' + bads if bads else ''} | "
                         f"{'-' if mx is None else f'{mx:.1e}'} | {same} | {r['source']} |")
    return lines


def report(args, results, meta, final) -> list[str]:
    lines = [f"# The solver's schedule vs the heuristic pipeline ({meta['device']}, {args.date})", "",
             f"Command: `python tools/probes/schedule_vs_heuristic.py {' '.join(sys.argv[1:])}`. One process; "
             f"`triton.testing.do_bench` median ({args.warmup} ms warm-up, {args.rep} ms repeats); TFLOP/s count "
             "every dot; ratio = heuristic time / ws-schedule time (> 1: the schedule is faster). Errors against a "
             "float32 torch reference from the same inputs, outputs NaN-filled before the checked run.", "",
             f"Device: {meta['device']}; torch {meta['torch']}, triton {meta['triton']}; back end `{args.hopper}`; "
             f"OR-Tools {'importable' if have_ortools() else 'not installed'} (--solver {args.solver}).", ""]
    if not final:
        lines += ["(partial: written while the run goes on)", ""]
    lines += table(results) + [""]
    for r in results:
        for n in r["notes"]:
            lines.append(f"- {r['name']}: {n}")
    return lines + [""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="more kernels (file stems) after the default three")
    ap.add_argument("--only", action="store_true", help="only the kernels named, not the default three")
    ap.add_argument("--out", help="write the table to DIR/<date>-schedule-vs-heuristic-<device>.md")
    ap.add_argument("--solver", choices=["auto", "live", "stored"], default="auto")
    ap.add_argument("--hopper", default="ws-hopper", help="the back end of both (e.g. 'ws-hopper{persistent=true}')")
    ap.add_argument("--sizes", type=int, default=2, help="how many of each kernel's sizes (1: the smaller)")
    ap.add_argument("--rep", type=int, default=200, help="do_bench repetition time, ms")
    ap.add_argument("--warmup", type=int, default=25, help="do_bench warm-up time, ms")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--compile-only", action="store_true", help="compile only (no torch, no GPU)")
    args = ap.parse_args()
    names = list(dict.fromkeys(([] if args.only else DEFAULT) + args.names))
    for n in names:  # an unknown name fails now, not after minutes of timing
        source(n)
        sizes_of(n)
    if args.compile_only:
        return compile_only(names, args.hopper)

    import torch
    import triton
    from triton.testing import do_bench

    torch.backends.cuda.matmul.allow_tf32 = False  # the float32 references are float32
    bench = lambda f: do_bench(f, warmup=args.warmup, rep=args.rep, return_mode="median")  # noqa: E731
    dev = torch.cuda.get_device_name()
    meta = {"device": dev, "torch": torch.__version__, "triton": triton.__version__}
    slug = "h100" if "H100" in dev else "h200" if "H200" in dev else dev.lower().replace(" ", "-")
    out = Path(args.out) / f"{args.date}-schedule-vs-heuristic-{slug}.md" if args.out else None
    results, wrong = [], False
    for name in names:
        sched = next(iter(schedule_pipelines(name, args.solver, args.hopper)), None)
        try:
            results.append(time_kernel(torch, bench, name, sched, args.hopper, args.sizes))
        except Exception:  # noqa: BLE001 - a probe bug must not lose the other kernels
            traceback.print_exc()
            results.append({"name": name, "rows": [], "notes": ["crashed (see the log)"], "source": "-"})
            wrong = True
        if out:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("\n".join(report(args, results, meta, final=False)) + "\n")
    lines = report(args, results, meta, final=True)
    print("\n".join(lines))
    if out:
        out.write_text("\n".join(lines) + "\n")
        print(f"wrote {out}")
    for r in results:
        for row in r["rows"]:
            for who in ("heuristic", "ws-schedule"):
                c = row.get(who, {})
                wrong |= "error" in c or not c.get("ok", True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
