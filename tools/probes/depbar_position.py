"""Where ptxas puts the steady loop's P·V wait (`WARPGROUP.DEPBAR.LE gsb0, 0x0`) among the
softmax's exponentials (bench/results/2026-11-26-attention-tile-and-order-notes.md, hypothesis 4).

    python tools/probes/depbar_position.py kernel.ptx [--nvdisasm PATH]

Assembles the PTX (ptxas on PATH), disassembles it (nvdisasm: the pip package
nvidia-cuda-nvdisasm has one) and prints the order of events from the first QK^T wait
(`[D1]`) to the next wgmma: `[D0]` the P·V wait, `A` an mbarrier arrival (a slot release),
`eN` N exponentials, `fN` N bf16/f16 packs, `S` a named-barrier sync, `H` a wgmma. For example
`[D1]A[D0]Ae8f2...` (the wait hoisted above the softmax) or `[D1]Ae66[D0]Af32` (after it).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

EVENTS = (("DEPBAR", None), ("MUFU.EX2", "e"), ("F2FP", "f"), ("HGMMA", "H"), ("SYNCS.ARRIVE", "A"), ("BAR.SYNC", "S"))


def order(sass: str) -> str:
    """The event string of the first steady-loop iteration in `sass` (nvdisasm -c output)."""
    ins = [re.sub(r"/\*.*?\*/", "", ln).strip() for ln in sass.splitlines()]
    ins = [ln for ln in ins if ln and not ln.startswith((".", "//"))]
    start = next(i for i, ln in enumerate(ins) if "DEPBAR.LE gsb0, 0x1" in ln)
    seq = []
    for ln in ins[start:]:
        for key, mark in EVENTS:
            if key in ln:
                seq.append(mark or ("[D0]" if "0x0" in ln else "[D1]"))
                break
        if seq and seq[-1] == "H":
            break
    out = "".join(seq)
    return re.sub(r"(e+|f+)", lambda m: f"{m.group(1)[0]}{len(m.group(1))}", out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ptx")
    ap.add_argument("--nvdisasm", default=shutil.which("nvdisasm") or "nvdisasm")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        cubin = Path(d) / "k.cubin"
        subprocess.run(["ptxas", "-arch=sm_90a", args.ptx, "-o", str(cubin)], check=True)
        sass = subprocess.run([args.nvdisasm, "-c", str(cubin)], capture_output=True, text=True, check=True).stdout
    print(order(sass))


if __name__ == "__main__":
    main()
