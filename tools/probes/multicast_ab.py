"""What would TMA multicast across a cluster of two CTAs give a persistent GEMM? A/B timing of
a kernel against a copy of its PTX patched as text for clusters of 2, in one process, beside the
torch op a user would call instead.

    python tools/probes/multicast_ab.py [--kernels gemm,d] [--ks 256,1024,4096,16384] \\
        [--variant 'ws-hopper{persistent=true}']
    python tools/probes/multicast_ab.py --dry-run   # patch and assemble only (ptxas)

The patch (what a compiler pass would have to emit; cuBLAS's `..._1x2_...` kernels do this):
- `.reqnctapercluster 2, 1, 1`: programs 2j and 2j+1 form a cluster (rank = pid % 2). In
  `ws-persistent`'s banded order tiles 2j and 2j+1 (x fastest inside a band of 8) share their
  y, hence the operand that depends on y alone (B, the tile's columns): the shared operand.
- the shared operand's TMA load: each CTA loads half its rows (a box of rows / 2) at row
  offset rank x rows / 2 and multicasts it to both CTAs (`.multicast::cluster`, mask 0b11),
  into the same half of both slots; each FULL barrier still expects the whole slot's bytes.
- EMPTY barriers expect twice the arrivals: each consumer warp releases a slot in its own CTA
  and in the peer (`mapa` + `mbarrier.arrive.shared::cluster`), since the peer's producer
  writes into this CTA's slot too.
- a cluster barrier after the mbarriers' initialization (the peer may signal them at once) and
  before the exit (the peer may still arrive on this CTA's barriers).
Valid only where every cluster's two tiles share y (even band widths and tile counts: M = N =
8192 here); every output is checked against a float64 product. This is a probe: the compiler
does not emit it.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import wsdialects  # noqa: E402

_LOAD = re.compile(r"@p cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes "
                   r"\[(%r\d+)\], \[(%rd\d+), \{(%r\d+), (%r\d+)\}\], \[(%r\d+)\];")
_INIT = re.compile(r"@p mbarrier\.init\.shared::cta\.b64 \[(%r\d+)\], (%r\d+|\d+);")
_ARRIVE = re.compile(r"@p mbarrier\.arrive\.shared::cta\.b64 _, \[(%r\d+)\];")
_SYNC = "barrier.cluster.arrive.release; barrier.cluster.wait.acquire;"


def patch(ptx: str, desc_param: int, half_rows: int, half_bytes: int) -> tuple[str, dict]:
    """The PTX for clusters of two with the `desc_param`-th argument's loads multicast (see above)."""
    counts = {}
    name = re.search(r"\.entry (\w+)\(", ptx).group(1)
    reg = re.search(rf"ld\.param\.b64\s+(%rd\d+), \[{name}_param_{desc_param}\];", ptx).group(1)
    movs = dict(re.findall(r"mov\.b32\s+(%r\d+), (\d+);", ptx))

    def load(m):
        dst, tmap, x, y, bar = m.groups()
        if tmap != reg:
            return m.group(0)
        counts["loads"] = counts.get("loads", 0) + 1
        return ("{ .reg .b32 %mc_r, %mc_d, %mc_y; .reg .b16 %mc_m; mov.u32 %mc_r, %cluster_ctarank; "
                f"mad.lo.u32 %mc_d, %mc_r, {half_bytes}, {dst}; mad.lo.u32 %mc_y, %mc_r, {half_rows}, {y}; "
                "mov.b16 %mc_m, 3; @p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                f".multicast::cluster [%mc_d], [{tmap}, {{{x}, %mc_y}}], [{bar}], %mc_m; }}")

    def init(m):
        bar, cnt = m.groups()
        value = int(cnt) if cnt.isdigit() else int(movs[cnt])
        if value == 1:  # a FULL barrier (one arrive.expect_tx) or a staged load's
            return m.group(0)
        counts["empty barriers"] = counts.get("empty barriers", 0) + 1
        return f"@p mbarrier.init.shared::cta.b64 [{bar}], {2 * value};"

    def arrive(m):
        counts["releases"] = counts.get("releases", 0) + 1
        return (m.group(0) + " { .reg .b32 %mc_p, %mc_a; mov.u32 %mc_p, %cluster_ctarank; xor.b32 %mc_p, %mc_p, 1; "
                f"mapa.shared::cluster.u32 %mc_a, {m.group(1)}, %mc_p; @p mbarrier.arrive.shared::cluster.b64 _, [%mc_a]; }}")

    ptx = _LOAD.sub(load, ptx)
    ptx = _INIT.sub(init, ptx)
    ptx = _ARRIVE.sub(arrive, ptx)
    ptx, n = re.subn(r"(\.maxntid \d+(?:, \d+, \d+)?\n)", r"\1.reqnctapercluster 2, 1, 1\n", ptx, count=1)
    counts["cluster directive"] = n
    ptx, n = re.subn(r"(fence\.mbarrier_init\.release\.cluster;\n(?:.*\n)*?\s*bar\.warp\.sync -1; bar\.sync 0;\n)",
                     rf"\1\t{_SYNC}\n", ptx, count=1)
    counts["start sync"] = n
    ptx, n = re.subn(r"\n(\s*)ret;", rf"\n\1{_SYNC}\n\1ret;", ptx)
    counts["exit syncs"] = n
    return ptx, counts


def shared_operand(info) -> int:
    """The descriptor argument whose box has the most rows (B of these kernels: 256 or 128 rows)."""
    descs = [(p.block[0], i) for i, p in enumerate(info.params) if p.kind == "desc" and len(p.block) == 2]
    return max(descs)[1]


def patched_kernel(k):
    from wsdialects.runtime.launch import Launcher

    info = next(iter(k.kernels.values()))
    i = shared_operand(info)
    p = info.params[i]
    rows, cols = p.block
    half = rows // 2
    esize = {"f16": 2, "bf16": 2, "f32": 4, "f8E4M3FN": 1}[p.dtype]
    text, counts = patch(k.ptx, i, half, half * cols * esize)
    params = list(info.params)
    params[i] = dataclasses.replace(p, block=(half, cols))
    return text, counts, Launcher(text, dataclasses.replace(info, params=params))


def compile_kernel(which: str, variant: str):
    if which == "gemm":
        return wsdialects.compile(ROOT / "examples" / "kernels" / "gemm.mlir", pipeline=variant)
    from gemm_kinds_specs import KERNELS, KINDS

    return wsdialects.compile(KERNELS / KINDS[which].file, pipeline=variant)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="gemm,d", help="gemm (examples/kernels/gemm.mlir) and kinds of bench/gemm_kinds.py")
    ap.add_argument("--ks", default="256,1024,4096,16384")
    ap.add_argument("--variant", default="ws-hopper{persistent=true}")
    ap.add_argument("--out", default="")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--profile", choices=["ours", "multicast"], help="launch that kernel of the first of --kernels "
                    "twice at the first of --ks, nothing else (for ncu --launch-skip 1)")
    args = ap.parse_args()
    builds = []
    for which in args.kernels.split(","):
        k = compile_kernel(which, args.variant)
        text, counts, launcher = patched_kernel(k)
        print(f"{which}: patched {counts}", flush=True)
        builds.append((which, k, text, launcher))
    if args.dry_run:
        for which, _, text, _ in builds:
            with tempfile.TemporaryDirectory() as d:
                (Path(d) / "k.ptx").write_text(text)
                r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(Path(d) / "k.ptx"), "-o", str(Path(d) / "k.cubin")],
                                   capture_output=True, text=True)
                print(which, "ptxas:", r.returncode, (r.stdout + r.stderr)[-600:])
        return
    import torch
    from triton.testing import do_bench

    from gemm_kinds_specs import KINDS
    from gemm_variants import problem

    bench = lambda f: do_bench(f, warmup=25, rep=200, return_mode="median")  # noqa: E731
    dev = torch.cuda.get_device_name()
    lines = [f"# TMA multicast over clusters of 2, a PTX-patch probe ({dev}, {datetime.date.today()})", "",
             f"Command: `python tools/probes/multicast_ab.py --kernels {args.kernels} --ks {args.ks} "
             f"--variant '{args.variant}'` (one process; `triton.testing.do_bench` median, 25 ms warm-up, 200 ms; "
             "rel. error against a float64 product; ratios against the torch op of the same row).", "",
             "| kernel | K | torch TFLOP/s | ours TFLOP/s (x torch) | ours + multicast TFLOP/s (x torch) | "
             "multicast / ours | rel. error ours, multicast |", "|---|---|---|---|---|---|---|"]
    for which, k, _, mc in builds:
        for K in [int(x) for x in args.ks.split(",")]:
            if which == "gemm":
                g = problem(torch, K)
                out, ref, run, peer, flops = g["c"], g["ref"], g["launch"], g["cublas"], g["flops"]
            else:
                torch.manual_seed(K)
                s = KINDS[which].setup(torch, K)
                out, ref, run, peer = s["out"], s["ref"], s["launcher"], s["peers"][0][1]
                flops = KINDS[which].flops(K)
            if args.profile:
                f = run(k if args.profile == "ours" else mc)
                f()
                f()
                torch.cuda.synchronize()
                return
            errs, times = [], []
            t_peer = bench(peer)
            for kk in (k, mc):
                f = run(kk)
                out.fill_(float("nan"))
                f()
                torch.cuda.synchronize()
                errs.append(((out.double() - ref).norm() / ref.norm()).item())
                times.append(bench(f))
            tf = lambda t: flops / t / 1e9  # noqa: E731
            row = (f"| {which} | {K} | {tf(t_peer):.1f} | {tf(times[0]):.1f} ({t_peer / times[0]:.2f}) | "
                   f"{tf(times[1]):.1f} ({t_peer / times[1]:.2f}) | {times[0] / times[1]:.3f} | "
                   f"{errs[0]:.1e}, {errs[1]:.1e} |")
            print(row, flush=True)
            lines.append(row)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / f"{datetime.date.today()}-multicast-probe.md").write_text(text)


if __name__ == "__main__":
    main()
