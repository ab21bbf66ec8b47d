"""A per-iteration timeline of one CTA of an attention kernel (or any ws-hopper kernel): where
the warp groups wait, from SM clock stamps taken at each turn, wgmma commit and wgmma wait.

The question it answers (bench/results/2026-11-26-attention-tile-and-order-notes.md): the
tensor pipe is idle 25 % of the time in our ping-pong attention (12 % in FA3's); which hand-off
leaves it empty: a group waiting for its turn, a group arriving late at its turn, or a wgmma
wait returning late?

The compiled PTX is instrumented as text (a probe, not a compiler feature): the first thread of
each warp group of the CTA at (--cta-x, --cta-y) stores (event, %clock64) pairs into a global
array `ws_trace` after every `bar.sync` / `bar.arrive` on a named barrier (the ping-pong turns,
the gather), every `wgmma.commit_group` and every `wgmma.wait_group`; the stores are not
waited for, so the kernel runs as before up to a few instructions per event. After the launch
the array is read back (cuModuleGetGlobal) and summarised: per warp group, the median cycles
between consecutive event kinds in the steady state, and a merged excerpt of both groups.

    python tools/probes/attention_timeline.py --kernel examples/kernels/flash_attention_bf16.mlir \\
        --pipeline 'ws-hopper{cooperative=2 pingpong=true}' --L 4096 [--bh 64] [--out DIR]

Needs torch, cuda-python and a GPU (tools/device_run.sh's environment); `--dry-run` only
instruments and assembles the PTX (ptxas), which works on any machine with ptxas.
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402

CAP = 8192  # events per warp group
GROUPS = 4  # warp groups recorded (producer + up to three consumers)
KINDS = {"bar.sync": 1, "bar.arrive": 2, "commit": 3, "wait": 4}
NAMES = {v: k for k, v in KINDS.items()}


def _event_kind(line: str) -> tuple[int, int] | None:
    """(kind, detail) of an instrumented PTX line: the named barrier's id, or the wait's pending count."""
    if m := re.search(r"\bbar\.sync (\d+), \d+;", line):
        return (KINDS["bar.sync"], int(m.group(1))) if m.group(1) != "0" else None
    if m := re.search(r"\bbar\.arrive (\d+), \d+;", line):
        return KINDS["bar.arrive"], int(m.group(1))
    if "wgmma.commit_group.sync.aligned" in line:
        return KINDS["commit"], 0
    if m := re.search(r"wgmma\.wait_group\.sync\.aligned (\d+);", line):
        return KINDS["wait"], int(m.group(1))
    return None


def instrument(ptx: str, cta_x: int, cta_y: int) -> tuple[str, int]:
    """The PTX with a stamp after each event line of the kernel; the number of stamps."""
    lines = ptx.split("\n")
    out: list[str] = []
    n = 0
    in_entry = False
    for i, line in enumerate(lines):
        out.append(line)
        if line.startswith(".address_size"):
            out.append(f".global .align 16 .b8 ws_trace[{GROUPS * CAP * 16}];")
        if line.startswith(".visible .entry") or line.startswith(".entry"):
            in_entry = True
            continue
        if in_entry and line.strip() == "{":
            in_entry = False
            out += [
                "\t.reg .b32 %wtc, %wtw, %wtt, %wti;", "\t.reg .b64 %wta, %wtk, %wto;", "\t.reg .pred %wtp, %wtq;",
                "\tmov.u32 %wtc, 0;", "\tmov.u32 %wtt, %tid.x;", "\tshr.u32 %wtw, %wtt, 7;",
                "\tand.b32 %wtt, %wtt, 127;", "\tsetp.eq.u32 %wtp, %wtt, 0;",
                "\tmov.u32 %wtt, %ctaid.x;", f"\tsetp.eq.and.u32 %wtp, %wtt, {cta_x}, %wtp;",
                "\tmov.u32 %wtt, %ctaid.y;", f"\tsetp.eq.and.u32 %wtp, %wtt, {cta_y}, %wtp;",
                f"\tsetp.lt.and.u32 %wtp, %wtw, {GROUPS}, %wtp;",
                "\tmov.u64 %wta, ws_trace;",
            ]
            continue
        ev = _event_kind(line)
        if ev is None:
            continue
        kind, detail = ev
        code = kind * 100 + detail
        n += 1
        out += [
            f"\tsetp.lt.and.u32 %wtq, %wtc, {CAP}, %wtp;",
            "\tmov.u64 %wtk, %clock64;",
            f"\tmad.lo.u32 %wti, %wtw, {CAP}, %wtc;",
            "\tmul.wide.u32 %wto, %wti, 16;", "\tadd.u64 %wto, %wta, %wto;",
            f"\t@%wtq st.global.v2.u64 [%wto], {{{code * 100000 + n}, %wtk}};",
            "\t@%wtq add.u32 %wtc, %wtc, 1;",
        ]
    return "\n".join(out), n


def summarise(trace, groups: int) -> list[str]:
    """Median cycles between consecutive events of each warp group (steady state: the middle
    half of its events), and the first 60 events after the middle, both groups merged."""
    lines = []
    merged = []
    for g in range(groups):
        ev = [(int(c), int(t)) for c, t in trace[g] if c != 0]
        if not ev:
            continue
        lines.append(f"warp group {g}: {len(ev)} events")
        gaps = defaultdict(list)
        lo, hi = len(ev) // 4, 3 * len(ev) // 4
        for (c0, t0), (c1, t1) in zip(ev[lo:hi], ev[lo + 1:hi + 1]):
            gaps[(c0 // 100000, c1 // 100000)].append(t1 - t0)
        for (a, b), d in sorted(gaps.items(), key=lambda kv: -sum(kv[1])):
            d.sort()
            lines.append(f"  {_name(a):>14} -> {_name(b):<14} x{len(d):4d}  median {d[len(d) // 2]:6d} cycles, "
                         f"total {sum(d):9d}")
        merged += [(t, g, c) for c, t in ev]
    merged.sort()
    if merged:
        mid = len(merged) // 2
        t0 = merged[mid][0]
        lines.append("merged excerpt (cycles from the first shown event; group: event):")
        lines += [f"  {t - t0:8d}  g{g}: {_name(c // 100000)} (PTX event {c % 100000})" for t, g, c in merged[mid:mid + 60]]
    return lines


def _name(code: int) -> str:
    kind, detail = divmod(code, 100)
    return f"{NAMES.get(kind, '?')} {detail}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default=str(ROOT / "examples" / "kernels" / "flash_attention_bf16.mlir"))
    ap.add_argument("--pipeline", default="ws-hopper{cooperative=2 pingpong=true}")
    ap.add_argument("--L", type=int, default=4096)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--bh", type=int, default=64)
    ap.add_argument("--cta-x", type=int, default=0)
    ap.add_argument("--cta-y", type=int, default=0)
    ap.add_argument("--out", default="")
    ap.add_argument("--dry-run", action="store_true", help="instrument and assemble only (ptxas), no launch")
    ap.add_argument("--patch", default="", help="first patch the PTX as tools/probes/ptx_patch_ab.py does (membar, nanosleep)")
    args = ap.parse_args()
    k = wsdialects.compile(args.kernel, pipeline=args.pipeline)
    launcher = k.kernel()
    ptx = k.ptx
    if args.patch:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from ptx_patch_ab import FENCES, patch  # noqa: PLC0415

        ptx, _ = patch(ptx, FENCES[args.patch])
    ptx, n = instrument(ptx, args.cta_x, args.cta_y)
    print(f"{n} stamps in {launcher.info.name}")
    if args.dry_run:
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "k.ptx").write_text(ptx)
            r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(Path(d) / "k.ptx"), "-o", str(Path(d) / "k.cubin")],
                               capture_output=True, text=True)
            print(r.stdout + r.stderr)
            sys.exit(r.returncode)
    import numpy as np
    import torch
    from cuda.bindings import driver as drv

    launcher.ptx = ptx
    bf16 = "bf16" in Path(args.kernel).name
    dt = torch.bfloat16 if bf16 else torch.float16
    q, kk, v = (torch.randn(args.bh, args.L, args.d, device="cuda", dtype=dt) for _ in range(3))
    o = torch.empty_like(q)
    bm = 64 if args.d == 256 else 128
    launcher[(math.ceil(args.L / bm), args.bh)](q, kk, v, o, args.L, 1 / math.sqrt(args.d))
    torch.cuda.synchronize()
    mod, _ = launcher._func[torch.cuda.current_device()]
    err, ptr, size = drv.cuModuleGetGlobal(mod, b"ws_trace")
    assert int(err) == 0, err
    host = np.zeros(size // 8, dtype=np.uint64)
    (err,) = drv.cuMemcpyDtoH(host.ctypes.data, ptr, size)
    assert int(err) == 0, err
    trace = host.reshape(GROUPS, CAP, 2)
    text = [f"# {launcher.info.name}, `{args.pipeline}`{' + ' + args.patch if args.patch else ''}, L = {args.L}, B*H = {args.bh}, CTA ({args.cta_x}, {args.cta_y}), "
            f"{torch.cuda.get_device_name()}", ""] + summarise(trace, GROUPS)
    print("\n".join(text))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "timeline.txt").write_text("\n".join(text) + "\n")
        np.save(Path(args.out) / "timeline.npy", trace)


if __name__ == "__main__":
    main()
