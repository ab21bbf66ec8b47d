"""A/B timing of an attention kernel against copies of its PTX patched as text, in one process:
does keeping the P·V wait after the softmax (where the IR puts it; ptxas hoists it above the
exponentials, bench/results/2026-11-26-attention-stalls-notes.md) pay?

    python tools/probes/ptx_patch_ab.py [--kernels flash_attention_bf16,flash_attention] \\
        [--pipelines 'ws-hopper{cooperative=2 pingpong=true}'] [--ls 4096,16384] [--patches membar,nanosleep]
    python tools/probes/ptx_patch_ab.py --dry-run   # patch and assemble only (ptxas), print the wait's place

Patches (each inserted in front of every `wgmma.wait_group.sync.aligned 0` that follows
exponentials, i.e. the softmax's P·V waits): `membar` = `fence.acq_rel.cta` (MEMBAR.ALL.CTA:
ptxas does not move the wait above it), `nanosleep` = `nanosleep.u32 0` (the earlier probe's
fence). The fences change no result: every output is checked against float32 SDPA.
Speed-of-light patches (results not attention, not checked): `noexp` = every ex2 a mov (the
kernel without its MUFU work: how fast the wgmma pipeline alone lets it run); `+` combines.
`emu4` / `emu8` / `emu16`: every 4th / 8th / 16th ex2 computed on the FMA pipe (a cubic and an
exponent add; checked against SDPA like the fences). Timed with
`triton.testing.do_bench` (median), beside cuDNN and (bf16) FlashAttention-3 on the same inputs.
This is a probe: the compiler does not emit these fences.
"""

from __future__ import annotations

import argparse
import datetime
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools" / "probes"))
import wsdialects  # noqa: E402

FENCES = {"membar": "fence.acq_rel.cta;", "nanosleep": "nanosleep.u32 0;"}
# speed-of-light patches (wrong results, not checked): how fast would the kernel be without ...
SOL = {"noexp": "the exponentials (each ex2 a mov: MUFU off the loop)"}
# exponentials partly on the FMA pipe: every Nth ex2 becomes 2^round(x) * p(x - round(x)), p the
# cubic Taylor polynomial of 2^f on [-0.5, 0.5] (relative error < 8e-4 where 2^x is normal),
# the exponent added as an integer; x clamped at -126, so -inf gives 2^-126 instead of 0
EMU = {"emu4": 4, "emu8": 8, "emu16": 16}
_EX2 = re.compile(r"^(\s*)ex2\.approx(?:\.ftz)?\.f32 (%\w+), (%\w+);$")


# a pipeline starting with one of these compiles the solver's stored schedule (the suffix of its file)
STORED = {"ws-schedule{arch=h100},": "", "ws-schedule{arch=h100 pingpong=false},": "_split",
          "ws-schedule{arch=h100 partner-latency=false},": "_occupancy"}


def head_dim(kname: str) -> int:
    return 64 if "d64" in kname else 256 if "d256" in kname else 128


def slug(pipe: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", pipe).strip("_")


def emulate_exp2(ptx: str, every: int) -> tuple[str, int]:
    """Every `every`-th ex2 of the PTX computed on the FMA pipe instead of MUFU."""
    out, seen, n = [], 0, 0
    for line in ptx.split("\n"):
        m = _EX2.match(line)
        if m:
            seen += 1
            if seen % every == 0:
                ind, d, x = m.groups()
                n += 1
                out.append(f"{ind}{{ .reg .b32 %ex_x, %ex_t, %ex_r, %ex_f, %ex_p, %ex_i;\n"
                           f"{ind}max.f32 %ex_x, {x}, 0fC2FC0000;\n"        # clamp at -126
                           f"{ind}add.rn.f32 %ex_t, %ex_x, 0f4B400000;\n"    # + 1.5 * 2^23: round(x) in the low bits
                           f"{ind}sub.rn.f32 %ex_r, %ex_t, 0f4B400000;\n"    # round(x)
                           f"{ind}sub.rn.f32 %ex_f, %ex_x, %ex_r;\n"         # f in [-0.5, 0.5]
                           f"{ind}fma.rn.f32 %ex_p, %ex_f, 0f3D635847, 0f3E75FDF0;\n"  # ln2^3/6, ln2^2/2
                           f"{ind}fma.rn.f32 %ex_p, %ex_p, %ex_f, 0f3F317218;\n"       # ln2
                           f"{ind}fma.rn.f32 %ex_p, %ex_p, %ex_f, 0f3F800000;\n"       # 1
                           f"{ind}shl.b32 %ex_i, %ex_t, 23;\n"
                           f"{ind}add.s32 {d}, %ex_p, %ex_i; }}")
                continue
        out.append(line)
    return "\n".join(out), n
WAIT0 = "\twgmma.wait_group.sync.aligned 0;"


def patch(ptx: str, fence: str) -> tuple[str, int]:
    """The PTX with `fence` in front of each P·V wait that follows exponentials; how many."""
    lines = ptx.split("\n")
    out, n, last_ex2 = [], 0, -10_000
    for i, line in enumerate(lines):
        if "ex2.approx" in line:
            last_ex2 = i
        if line == WAIT0 and i - last_ex2 < 400:
            out.append("\t" + fence)
            n += 1
        out.append(line)
    return "\n".join(out), n


_LABEL = re.compile(r"^\$L__BB\S+:$")


def early_wait(ptx: str, nth: int) -> tuple[str, int]:
    """The PTX with each softmax P·V wait moved up to just after the `nth` exponential of its
    basic block, pinned there by a fence (moving a wait earlier is always safe); how many."""
    lines = ptx.split("\n")
    n, i = 0, 0
    while i < len(lines):
        if lines[i] == WAIT0 and lines[i - 1].strip() == "// begin inline asm":
            b = next((j for j in range(i - 1, -1, -1) if _LABEL.match(lines[j])), 0)
            ex2 = [j for j in range(b, i) if "ex2.approx" in lines[j]]
            if len(ex2) > nth and lines[ex2[nth - 1] + 1].strip() == "// end inline asm":
                del lines[i - 1:i + 2]
                at = ex2[nth - 1] + 2
                lines[at:at] = ["\t// begin inline asm", "\tfence.acq_rel.cta;", WAIT0, "\t// end inline asm"]
                n += 1
                i += 2
        i += 1
    return "\n".join(lines), n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="flash_attention_bf16,flash_attention,flash_attention_causal")
    ap.add_argument("--pipelines", default="ws-hopper{cooperative=2 pingpong=true};ws-schedule{arch=h100},ws-hopper")
    ap.add_argument("--ls", default="4096,16384")
    ap.add_argument("--patches", default="membar,nanosleep")
    ap.add_argument("--bh", type=int, default=128, help="batch x heads (B = 4, H = bh / 4)")
    ap.add_argument("--out", default="")
    ap.add_argument("--kernel-dir", default=str(ROOT / "examples" / "kernels"),
                    help="where the kernels of --kernels are (e.g. bench/kernels/bn160); the solver's are stored")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--extra-ptx", default="", metavar="LABEL=DIR",
                    help="also time DIR/<kernel>__<pipeline slug>.ptx (PTX another compiler version wrote, "
                         "`--write-ptx`) as a variant of each build, in the same process")
    ap.add_argument("--write-ptx", default="", metavar="DIR", help="write each build's PTX there and stop")
    args = ap.parse_args()
    patches = [p for p in args.patches.split(",") if p]
    extra = [args.extra_ptx.partition("=")[0]] if args.extra_ptx else []
    pipes = [p for p in args.pipelines.split(";") if p]
    builds = []
    for kname in args.kernels.split(","):
        for pipe in pipes:
            sched = next((suffix for prefix, suffix in STORED.items() if pipe.startswith(prefix)), None)
            src = (ROOT / "test/Inputs/kernels/scheduled" / f"{kname}{sched}.mlir" if sched is not None
                   else Path(args.kernel_dir) / f"{kname}.mlir")
            k = wsdialects.compile(src, pipeline=pipe.split(",", 1)[1] if sched is not None else pipe)
            variants = [("as compiled", k.ptx)]
            for p in patches:
                text, n = k.ptx, 0
                for part in sorted(p.split("+"), key=lambda x: x in SOL):  # combined: fences first
                    if part.startswith("early"):
                        text, m = early_wait(text, int(part[5:]))
                        n += m
                    elif part in EMU:
                        text, m = emulate_exp2(text, EMU[part])
                        n += m
                    elif part in SOL:
                        n += text.count("ex2.approx")
                        text = re.sub(r"ex2\.approx(?:\.ftz)?\.f32 ", "mov.b32 ", text)
                    else:
                        text, m = patch(text, FENCES[part])
                        n += m
                variants.append((f"{p} ({n})", text))
            if args.extra_ptx:
                label, _, d = args.extra_ptx.partition("=")
                f = Path(d) / f"{kname}__{slug(pipe)}.ptx"
                if f.exists():
                    variants.append((label, f.read_text()))
            if args.write_ptx:
                Path(args.write_ptx).mkdir(parents=True, exist_ok=True)
                (Path(args.write_ptx) / f"{kname}__{slug(pipe)}.ptx").write_text(k.ptx)
            builds.append((kname, pipe, k, variants))
    if args.write_ptx:
        return
    if args.dry_run:
        from depbar_position import order  # noqa: PLC0415
        for kname, pipe, _, variants in builds:
            for label, text in variants:
                with tempfile.TemporaryDirectory() as d:
                    (Path(d) / "k.ptx").write_text(text)
                    subprocess.run(["ptxas", "-arch=sm_90a", str(Path(d) / "k.ptx"), "-o", str(Path(d) / "k.cubin")],
                                   check=True)
                    nvd = subprocess.run(["nvdisasm", "-c", str(Path(d) / "k.cubin")], capture_output=True, text=True)
                    where = order(nvd.stdout)[:40] if nvd.returncode == 0 else "(no nvdisasm)"
                print(f"{kname} `{pipe}` {label}: {where}")
        return
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench

    from wsdialects.runtime.launch import Launcher

    try:
        from fa3_fwd_interface import flash_attn_func as fa3
    except ImportError:
        fa3 = None
    bench = lambda f: do_bench(f, warmup=25, rep=200, return_mode="median")  # noqa: E731
    dev = torch.cuda.get_device_name()
    lines = [f"# P·V wait placement A/B ({dev})", "",
             f"Command: `python tools/probes/ptx_patch_ab.py --kernels {args.kernels} --pipelines '{args.pipelines}' "
             f"--ls {args.ls} --patches {args.patches}"
             + (f" --kernel-dir {args.kernel_dir}" if Path(args.kernel_dir) != ROOT / "examples" / "kernels" else "")
             + f"` ({datetime.date.today().isoformat()}); B*H = {args.bh}, d = 128 (64, 256 for the d64 / d256 kernels); TFLOP/s (do_bench median); "
             "rel. error against float32 SDPA on the first 4 heads.", "",
             "| kernel | pipeline | L | cuDNN | FA3 | " + " | ".join(["as compiled"] + patches + extra) + " | max rel. error |",
             "|---|---|---|---|---|" + "---|" * (1 + len(patches) + len(extra)) + "---|"]
    for kname, pipe, k, variants in builds:
        causal = "causal" in kname
        dtype = torch.bfloat16 if "bf16" in kname else torch.float16
        info = next(iter(k.kernels.values()))
        D = head_dim(kname)
        bm = 64 if D == 256 else 128  # the query tile of the bundled kernels
        for L in [int(x) for x in args.ls.split(",")]:
            torch.manual_seed(L)
            B, H = 4, args.bh // 4
            q, kk, v = (torch.randn(B, H, L, D, device="cuda", dtype=dtype) for _ in range(3))
            flops = 4.0 * B * H * L * L * D / (2 if causal else 1)
            tf = lambda t: flops / t / 1e9  # noqa: E731
            with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                ref = F.scaled_dot_product_attention(q[:1, :4].float(), kk[:1, :4].float(), v[:1, :4].float(),
                                                     is_causal=causal)
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                t_cudnn = tf(bench(lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=causal)))
            t_fa3 = float("nan")
            if fa3 is not None and dtype == torch.bfloat16:
                qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, kk, v))
                t_fa3 = tf(bench(lambda: fa3(qt, kt, vt, causal=causal)))
            q3, k3, v3 = (x.reshape(B * H, L, D) for x in (q, kk, v))
            o3 = torch.empty_like(q3)
            cells, errs = [], []
            for label, text in variants:
                launcher = Launcher(text, info)
                run = lambda launcher=launcher: launcher[(math.ceil(L / bm), B * H)](q3, k3, v3, o3, L, 1 / math.sqrt(D))  # noqa: E731
                o3.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
                e = ((o3.view(B, H, L, D)[:1, :4].float() - ref).norm() / ref.norm()).item()
                errs.append(e)
                if any(x in SOL for x in label.split()[0].split("+")):
                    e = float("nan")  # a speed-of-light variant: its result is not attention
                elif not e < 1e-2:
                    print(f"{kname} {label} L={L}: rel. error {e:.2e}: WRONG", file=sys.stderr)
                cells.append(tf(bench(run)))
            base = cells[0]
            txt = [f"{cells[0]:.1f} ({cells[0] / t_cudnn:.2f}x cuDNN" + (f", {cells[0] / t_fa3:.2f}x FA3)" if t_fa3 == t_fa3 else ")")]
            txt += [f"{c:.1f} ({c / base - 1:+.1%})" for c in cells[1:]]
            row = f"| {kname} | `{pipe}` | {L} | {t_cudnn:.1f} | {t_fa3:.1f} | " + " | ".join(txt) + f" | {max(x for x in errs if x == x):.1e} |"
            print(row, flush=True)
            lines.append(row)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "ptx_patch_ab.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
