"""One table per KIND of GEMM kernel (issue 13): wsdialects kernels of test/Inputs/kernels/gemm_kinds/
against the torch op a user would call instead and against Triton on the same tile shape, at
8192-class shapes, `triton.testing.do_bench` medians.

    python bench/gemm_kinds.py [--kinds a,b,...] [--ks 1024,4096,16384] [--variants 'PIPE;PIPE']
                               [--out DIR] [--name SUFFIX] [--date D] [--rep MS] [--budget S]
    python bench/gemm_kinds.py --compile-only [--kinds ...] [--variants ...]   # no torch / GPU needed

Kinds (kernels in test/Inputs/kernels/gemm_kinds/, peers in bench/gemm_kinds_specs.py):
  a  bias + GELU-tanh epilogue, 128x128x64, ONE consumer warp group, masked pointer store (fp16)
       vs F.gelu(F.linear(x, w, bias), approximate="tanh") (and torch._addmm_activation)
  b  batched, 3-D TMA descriptors, TMA-store epilogue, 128x256x64 (fp16), 8 x 4096 x 4096
       vs torch.bmm
  g  batched at Tawa's setting (Fig. 9): the kernel of b at batch 8 x M = N = K, K from --ks
       (`--kinds g --ks 1024,2048,4096,8192,16384`) vs torch.bmm
  c  fp8 e4m3, per-tensor scales in the epilogue, 128x256x128, bf16 out vs torch._scaled_mm
  d  64x128x64 tiles, f32 output vs torch.mm(a, b.t(), out_dtype=torch.float32)
  e  gated MLP silu(x W1^T) * (x W3^T), one x load for both dots, 128x128x64
       vs two matmuls + F.silu * mul (and one matmul on [W1; W3])
  f  bf16 plain GEMM, 128x256x64 vs torch.matmul

Triton peer of every kind (bench/triton_peers.py, the TMA-persistent kernel bench/gemm.py uses too):
one program per SM looping over the tiles, device-side descriptors (`tl.make_tensor_descriptor`),
BLOCK_M/N/K = the .mlir kernel's tile (checked against the file), the same dtypes and epilogue; the
best of the kind's (num_stages, num_warps) configs (Kind.triton_configs), named in the table.

Each variant is a ws-opt pipeline (default 'ws-hopper;ws-hopper{persistent=true}'). Every output is
checked first (ours poisoned with NaN) against a float64 torch reference: rel. error
||out - ref|| / ||ref||, 'WRONG RESULT' on stderr above 1e-2 (or NaN). Each kind runs in a process
of its own under a time limit (a kind that fails, crashes the CUDA context or hangs is reported and
the others go on); the whole run keeps to --budget seconds (default 380). Prints one markdown table
per kind and writes DIR/<date>-gemm-kinds-<device><name>.md (default bench/results), rewritten
after every kind.

--compile-only compiles every kernel x variant in this process (no torch): with
WSDIALECTS_PTX_CACHE=.ptxcache it fills the PTX cache that a GPU machine whose llvmlite lacks
sm_90a reads; with ptxas on PATH it prints ptxas's register and spill report of each.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import wsdialects  # noqa: E402
from gemm_kinds_specs import KINDS, KERNELS, kernel_tile  # noqa: E402

DEFAULT_VARIANTS = "ws-hopper;ws-hopper{persistent=true};ws-schedule{arch=h100},ws-hopper"
SOLVER = "ws-schedule{arch=h100},"  # a variant starting so compiles the kind's stored solver schedule
BAD = 1e-2  # a relative error above this (or NaN) is a wrong result


def compile_kind(kind, variant: str):
    """A variant is a ws-opt pipeline; one starting with 'ws-schedule{arch=h100},' compiles the
    solver's schedule kept as IR (test/Inputs/kernels/gemm_kinds/scheduled/: no OR-Tools needed)."""
    if variant.startswith(SOLVER):
        return wsdialects.compile(KERNELS / "scheduled" / kind.file, pipeline=variant[len(SOLVER):])
    return wsdialects.compile(KERNELS / kind.file, pipeline=variant)


def ptxas_report(ptx: str) -> str:
    """ptxas -arch=sm_90a -v of `ptx`: 'R registers, S bytes spill stores, L bytes spill loads'."""
    exe = shutil.which("ptxas")
    if exe is None:
        return "no ptxas on PATH"
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "k.ptx"
        p.write_text(ptx)
        r = subprocess.run([exe, "-arch=sm_90a", "-v", str(p), "-o", str(Path(d) / "k.cubin")],
                           capture_output=True, text=True)
    txt = r.stdout + r.stderr
    if r.returncode:
        return "ptxas failed: " + txt.strip()[-300:]
    regs = re.search(r"Used (\d+) registers", txt)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", txt)
    return (f"{regs.group(1) if regs else '?'} registers, "
            f"{spill.group(1) if spill else '?'} B spill stores, {spill.group(2) if spill else '?'} B spill loads")


def tile_mismatch(kind) -> str | None:
    """Why the kind's Triton peer would not run on the kernel's tile (None when it does)."""
    t = kernel_tile(kind)
    if tuple(kind.block) != t:
        return f"Kind.block {tuple(kind.block)} is not the tile of {kind.file} {t}"
    return None


def compile_only(kinds, variants, use_ptxas: bool) -> int:
    bad = 0
    for kind in kinds:
        why = tile_mismatch(kind)
        if why:
            bad += 1
            print(f"({kind.key}) Triton peer: {why}", flush=True)
        else:
            print(f"({kind.key}) Triton peer tile {'x'.join(map(str, kind.block))} = {kind.file}'s; configs "
                  f"(num_stages, num_warps) {list(kind.triton_configs)}", flush=True)
        for v in variants:
            t0 = time.time()
            try:
                k = compile_kind(kind, v)
            except Exception as e:  # noqa: BLE001 - reported, the others go on
                bad += 1
                print(f"({kind.key}) {kind.file} {v}: DOES NOT COMPILE: {type(e).__name__}: {e}", flush=True)
                continue
            info = next(iter(k.kernels.values()))
            extra = f"; ptxas: {ptxas_report(k.ptx)}" if use_ptxas else ""
            print(f"({kind.key}) {kind.file} {v}: compiled in {time.time() - t0:.1f} s, {info.num_threads} threads, "
                  f"{info.smem_bytes} B shared memory{extra}", flush=True)
    return 1 if bad else 0


# ----------------------------------------------------------------------------- one kind (child)
def run_kind(kind, ks, variants, rep, warmup, dump) -> None:
    """Time one kind on the GPU; the results go to `dump` (a JSON file) after every step."""
    import torch

    try:
        import triton
        from triton.testing import do_bench

        bench = lambda f: do_bench(f, warmup=warmup, rep=rep, return_mode="median")  # noqa: E731
        triton_version = triton.__version__
    except ImportError:  # the CUDA-event fallback, said in the results
        triton_version = "not installed (CUDA-event timing)"

        def bench(f):
            for _ in range(3):
                f()
            torch.cuda.synchronize()
            ts = []
            for _ in range(max(5, rep // 5)):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                f()
                e.record()
                torch.cuda.synchronize()
                ts.append(s.elapsed_time(e))
            return sorted(ts)[len(ts) // 2]

    res = {"kind": kind.key, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton_version, "compile": {}, "rows": [], "notes": []}
    tp, tp_why = None, tile_mismatch(kind)
    if tp_why is None:
        try:
            import triton_peers as tp

            if not tp.ensure_allocator():
                res["notes"].append(f"triton {triton_version} has no `triton.set_allocator`: device-side tensor "
                                    "descriptors cannot get their scratch memory (the Triton peer's launches fail)")
        except Exception as e:  # noqa: BLE001 - no triton, or a Triton that cannot even define the kernel
            tp, tp_why = None, f"bench/triton_peers.py does not import here: {type(e).__name__}: {e}"[:400]

    def save():
        Path(dump).write_text(json.dumps(res))

    save()
    compiled = []
    for v in variants:
        try:
            compiled.append((v, compile_kind(kind, v)))
            res["compile"][v] = None
        except Exception as e:  # noqa: BLE001
            compiled.append((v, None))
            res["compile"][v] = f"{type(e).__name__}: {e}"[:400]
            print(f"({kind.key}) {v} does not compile: {e}", file=sys.stderr, flush=True)
    save()

    for K in ks:
        row = {"K": K, "ws": [], "peers": []}
        res["rows"].append(row)
        try:
            torch.manual_seed(K)
            case = kind.setup(torch, K)
        except Exception as e:  # noqa: BLE001 - e.g. out of memory
            row["error"] = f"setup: {type(e).__name__}: {e}"[:400]
            print(f"({kind.key}) K={K}: {row['error']}", file=sys.stderr, flush=True)
            save()
            continue
        ref = case["ref"]
        ref_norm = ref.norm()

        def rel(out, who):
            e = ((out.double() - ref).norm() / ref_norm).item()
            if not e < BAD:  # NaN (an element never written) or a wrong result
                print(f"({kind.key}) K={K} {who}: rel. error {e:.3e}: WRONG RESULT", file=sys.stderr, flush=True)
            return e

        for v, k in compiled:
            cell = {"variant": v}
            row["ws"].append(cell)
            if k is None:
                cell["error"] = "does not compile"
                continue
            try:
                launch = case["launcher"](k)
                case["out"].fill_(float("nan"))
                launch()
                torch.cuda.synchronize()
                cell["err"] = rel(case["out"], v)
                cell["ms"] = bench(launch)
            except Exception as e:  # noqa: BLE001 - reported; a broken context fails what follows too
                cell["error"] = f"{type(e).__name__}: {e}"[:400]
                print(f"({kind.key}) K={K} {v}: {cell['error']}", file=sys.stderr, flush=True)
        for label, fn in case["peers"]:
            cell = {"label": label}
            row["peers"].append(cell)
            try:
                cell["err"] = rel(fn(), label)
                cell["ms"] = bench(fn)
            except Exception as e:  # noqa: BLE001 - a peer this torch does not have
                cell["error"] = f"{type(e).__name__}: {e}"[:400]
                print(f"({kind.key}) K={K} {label}: {cell['error']}", file=sys.stderr, flush=True)
        tri = row["triton"] = {}
        if tp is None or "triton" not in case:
            tri["error"] = tp_why or "the kind has no Triton peer"
        else:
            fns = {}

            def launch(cfg):
                if cfg not in fns:
                    fns[cfg] = case["triton"](tp, *cfg)
                fns[cfg]()

            def check(cfg):
                case["out"].fill_(float("nan"))
                launch(cfg)
                torch.cuda.synchronize()
                return rel(case["out"], f"Triton {cfg}")

            best, fails = tp.best_config(kind.triton_configs, launch, check, bench,
                                         label=f"({kind.key}) K={K} Triton", ok=lambda e: e < BAD)
            tri["failures"] = fails
            if best is None:
                tri["error"] = "every config failed"
            else:
                tri["ms"], tri["cfg"], tri["err"] = best[0], list(best[1]), best[2]
        save()
        for n in case.get("notes", []):
            if n not in res["notes"]:
                res["notes"].append(n)
        flops = kind.flops(K)
        txt = "  ".join(f"{c['label']} {flops / c['ms'] / 1e9:.1f}" for c in row["peers"] if "ms" in c)
        if "ms" in tri:
            txt += f"  Triton {flops / tri['ms'] / 1e9:.1f} {tuple(tri['cfg'])} (err {tri['err']:.1e})"
        txt += "  " + "  ".join(f"ws[{i}] {flops / c['ms'] / 1e9:.1f} (err {c['err']:.1e})"
                                for i, c in enumerate(row["ws"]) if "ms" in c)
        print(f"({kind.key}) K={K:6d}  TFLOP/s: {txt}", flush=True)
        save()
        del case, ref
        torch.cuda.empty_cache()


# ----------------------------------------------------------------------------- tables
def fmt_err(c) -> str:
    e = c.get("err")
    return "-" if e is None else f"{e:.1e}" + ("" if e < BAD else " WRONG")


def _cfg_txt(cfg) -> str:
    return f"st {cfg[0]}, w {cfg[1]}"


def kind_table(kind, res, variants) -> list[str]:
    bm, bn, bk = kind.block
    lines = [f"### ({kind.key}) {kind.title}", "",
             f"`test/Inputs/kernels/gemm_kinds/{kind.file}`: {kind.tile}; {kind.problem}; "
             f"{kind.flop_text}. Peer (the op a user would call instead): {kind.peer_text}", "",
             f"Triton same tile (`bench/triton_peers.py`, our own): TMA-persistent, one program per SM looping "
             f"over the tiles (grouped along M by 8), device-side descriptors (`tl.make_tensor_descriptor`), "
             f"BLOCK_M/N/K = {bm}/{bn}/{bk} as the kernel; {kind.triton_text}. Best of (num_stages, num_warps) "
             f"{', '.join(str(tuple(c)) for c in kind.triton_configs)}, named in the cell (st, w).", ""]
    if res is None or res.get("fatal"):
        lines += [f"**Not run / failed:** {res.get('fatal') if res else 'no result'}", ""]
        if not res or not res.get("rows"):
            return lines
    for v, err in (res.get("compile") or {}).items():
        if err:
            lines += [f"**`{v}` does not compile:** `{err}`", ""]
    rows = res.get("rows", [])
    peers = []
    for r in rows:
        for c in r.get("peers", []):
            if c["label"] not in peers:
                peers.append(c["label"])
    head = ["K"] + [f"`{p}` TFLOP/s" for p in peers] + ["Triton same tile (best cfg) TFLOP/s"] \
        + [f"ws[{i}] TFLOP/s (x torch, x Triton)" for i in range(len(variants))] \
        + ["best ws / best torch", "best ws / Triton", "rel. error ws (max)", "rel. error torch (max)",
           "rel. error Triton"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['K']} | {r['error']} |" + " |" * (len(head) - 2))
            continue
        flops = kind.flops(r["K"])
        tf = lambda c: flops / c["ms"] / 1e9 if "ms" in c else None  # noqa: E731 (ms -> TFLOP/s)
        pc = {c["label"]: c for c in r.get("peers", [])}
        ptf = [tf(pc[p]) if p in pc else None for p in peers]
        cells = [str(r["K"])] + [f"{x:.1f}" if x else "failed" for x in ptf]
        tri = r.get("triton")
        ttf = tf(tri) if tri else None
        if tri is None:
            cells.append("not run")
        elif ttf is None:
            cells.append("no Triton peer here (below)" if tri.get("error") and not tri.get("failures")
                         else "failed (below)")
        else:
            cells.append(f"{ttf:.1f} ({_cfg_txt(tri['cfg'])})")
        main = ptf[0] if ptf else None
        wtf = []
        for c in r.get("ws", []):
            x = tf(c)
            if x is not None and not c.get("err", 0) < BAD:  # a wrong result has no speed
                cells.append(f"{x:.1f} WRONG")
                continue
            wtf.append(x)
            if x is None:
                cells.append("failed")
                continue
            ratios = [f"{x / main:.2f}x" if main else "-", f"{x / ttf:.2f}x" if ttf else "-"]
            cells.append(f"{x:.1f} ({', '.join(ratios)})")
        bw = max([x for x in wtf if x] or [0])
        bt = max([x for x in ptf if x] or [0])
        cells.append(f"{bw / bt:.2f}" if bw and bt else "-")
        cells.append(f"{bw / ttf:.2f}" if bw and ttf else "-")
        errs = [c for c in r.get("ws", []) if "err" in c]
        perrs = [c for c in r.get("peers", []) if "err" in c]
        worst = lambda cs: max(cs, key=lambda c: c["err"] if c["err"] == c["err"] else float("inf"))  # noqa: E731
        cells.append(fmt_err(worst(errs)) if errs else "-")
        cells.append(fmt_err(worst(perrs)) if perrs else "-")
        cells.append(fmt_err(tri) if tri and "err" in tri else "-")
        lines.append("| " + " | ".join(cells) + " |")
    fails = [f"K={r['K']} {c.get('variant') or c.get('label')}: `{c['error']}`"
             for r in rows for c in r.get("ws", []) + r.get("peers", []) if "error" in c]
    if fails:
        lines += ["", "Failures: " + "; ".join(fails[:8]) + (" ..." if len(fails) > 8 else "")]
    # the Triton peer: why it is missing, and the configs that failed (once each, not per K)
    tri_why, tri_fails = {}, []
    for r in rows:
        tri = r.get("triton") or {}
        if tri.get("error"):
            tri_why.setdefault(tri["error"], []).append(str(r["K"]))
        for f in tri.get("failures", []):
            if f not in tri_fails:
                tri_fails.append(f)
    if tri_why:
        lines += ["", "**Triton peer not measured:** " + "; ".join(f"K={', '.join(ks)}: `{w}`"
                                                                   for w, ks in tri_why.items())]
    if tri_fails:
        lines += ["", "Triton configs (num_stages, num_warps) that failed: "
                  + "; ".join(f"`{f}`" for f in tri_fails[:6]) + (" ..." if len(tri_fails) > 6 else "")]
    for n in res.get("notes", []):
        lines += ["", n]
    lines.append("")
    return lines


def write_report(args, kinds, results, variants, path_holder, final=False):
    info = next((r for r in results.values() if r and r.get("device")), {})
    dev = info.get("device", "unknown device")
    slug = "h100" if "H100" in dev else "h200" if "H200" in dev else dev.lower().replace(" ", "-")
    var_txt = "; ".join(f"ws[{i}] = `{v}`" for i, v in enumerate(variants))
    lines = [f"# GEMM kinds: wsdialects vs the torch op a user would call and Triton on the same tile "
             f"({dev}, {args.date})", "",
             f"Command: `python bench/gemm_kinds.py {' '.join(sys.argv[1:])}` (one run; each kind in a "
             f"process of its own; `triton.testing.do_bench` median, {args.warmup} ms warm-up, {args.rep} ms "
             "repeats; rel. error = ||out - ref|| / ||ref|| against a float64 torch reference on the GPU "
             "from the same (rounded) inputs, our output poisoned with NaN before the run; weights scaled by "
             "K^-1/2).", "",
             f"Device: {dev}; torch {info.get('torch', '?')}, triton {info.get('triton', '?')}; date {args.date}. "
             f"Variants: {var_txt} (a persistent variant launches min(132 x ctas-per-sm, tiles) programs). Ratios are "
             "ours / the first torch column (the op a user would call instead) and ours / the Triton "
             "same-tile peer's best config; 'best ws / best torch' and 'best ws / Triton' take the fastest ws "
             "variant (and the fastest torch op).", ""]
    if not final:
        lines += ["(partial: written while the run goes on)", ""]
    for kind in kinds:
        if kind.key in results:
            lines += kind_table(kind, results[kind.key], variants)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    f = out / f"{args.date}-gemm-kinds-{slug}{args.name}.md"
    if path_holder and path_holder[0] != f and path_holder[0].exists():
        path_holder[0].unlink()  # the device became known: rename the partial file
    f.write_text("\n".join(lines) + "\n")
    path_holder[:] = [f]
    return lines, f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (a..g)")
    ap.add_argument("--ks", default="1024,4096,16384")
    ap.add_argument("--variants", default=DEFAULT_VARIANTS, help="';'-separated ws-opt pipelines")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--name", default="", help="suffix of the results file name")
    ap.add_argument("--date", default=datetime.date.today().isoformat(), help="date written in the results")
    ap.add_argument("--rep", type=int, default=150, help="do_bench repetition time, ms")
    ap.add_argument("--warmup", type=int, default=25, help="do_bench warm-up time, ms")
    ap.add_argument("--budget", type=float, default=380, help="seconds for the whole run")
    ap.add_argument("--kind-timeout", type=float, default=150, help="seconds for one kind")
    ap.add_argument("--compile-only", action="store_true", help="only compile every kernel x variant")
    ap.add_argument("--no-ptxas", action="store_true", help="--compile-only without ptxas's report")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--json", help=argparse.SUPPRESS)
    args = ap.parse_args()
    t_start = time.time()
    keys = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in keys if k not in KINDS]
    if unknown:
        ap.error(f"unknown kinds {', '.join(unknown)} (have {', '.join(KINDS)})")
    kinds = [KINDS[k] for k in keys]
    variants = [v.strip() for v in args.variants.split(";") if v.strip()]
    ks = [int(k) for k in args.ks.split(",") if k.strip()]
    if args.compile_only:
        sys.exit(compile_only(kinds, variants, not args.no_ptxas))
    if args.child:
        run_kind(KINDS[args.child], ks, variants, args.rep, args.warmup, args.json)
        return

    results, path_holder = {}, []
    for kind in kinds:
        left = args.budget - (time.time() - t_start) - 5
        limit = min(args.kind_timeout, left)
        if limit < 20:
            results[kind.key] = {"fatal": f"not run: the time budget (--budget {args.budget:.0f} s) is spent"}
            print(f"({kind.key}) not run: out of time", file=sys.stderr, flush=True)
            continue
        print(f"== ({kind.key}) {kind.title} [{kind.file}], limit {limit:.0f} s", flush=True)
        with tempfile.TemporaryDirectory() as d:
            dump = Path(d) / "res.json"
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind.key, "--json", str(dump),
                   "--ks", args.ks, "--variants", args.variants, "--rep", str(args.rep), "--warmup", str(args.warmup)]
            fatal = None
            t0 = time.time()
            try:
                rc = subprocess.run(cmd, timeout=limit).returncode
                if rc:
                    fatal = f"the kind's process exited with status {rc} (see the log)"
            except subprocess.TimeoutExpired:
                fatal = f"timed out after {limit:.0f} s (killed; a hang or too slow)"
            try:
                res = json.loads(dump.read_text())
            except (OSError, ValueError):
                res = {}
            if fatal:
                res["fatal"] = fatal
                print(f"({kind.key}) {fatal}", file=sys.stderr, flush=True)
            results[kind.key] = res
            print(f"({kind.key}) done in {time.time() - t0:.0f} s", flush=True)
        try:
            lines, _ = write_report(args, kinds, results, variants, path_holder)
        except Exception:  # noqa: BLE001 - a table bug must not lose the run
            traceback.print_exc()
    lines, f = write_report(args, kinds, results, variants, path_holder, final=True)
    print("\n".join(lines))
    print(f"wrote {f} in {time.time() - t_start:.0f} s")


if __name__ == "__main__":
    main()
