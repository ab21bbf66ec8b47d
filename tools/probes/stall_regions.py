"""Where a consumer warp of an attention kernel spends its steady-loop time, per region of the
loop, from ncu's per-instruction warp-stall samples (tools/device_run.sh `STEPS=profile
PROFILE_SOURCE=1` writes them as sass-counts-N.csv.gz).

    python tools/probes/stall_regions.py sass-counts-0.csv.gz [sass-counts-1.csv.gz ...]

The loop is the one around the most-sampled `WARPGROUP.DEPBAR.LE gsb0, 0x1` (the QK^T wait):
from its back edge's target to the back edge. Regions, in loop order: `turn + slots` (slot
waits and the named-barrier turn before the first wgmma), `QK issue` (wgmma with both operands
in shared memory), `PV issue` (wgmma with A in registers, up to the QK^T wait), `QK wait`,
`softmax before PV wait`, `PV wait` (`DEPBAR.LE gsb0, 0x0`), `softmax after`. Prints samples
per region (share of the loop) and per key column when `--keys` gives the key tiles' widths.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import re


def load(path: str):
    rows = list(csv.reader(gzip.open(path, "rt")))
    hdr = rows[1]
    return hdr, [r for r in rows[2:] if len(r) == len(hdr)]


def regions(hdr, data) -> tuple[list[tuple[str, int]], int]:
    src, ns, ex, ad = (hdr.index(k) for k in ("Source", "Warp Stall Sampling (All Samples)",
                                               "Instructions Executed", "Address"))
    samples = lambda i: int(data[i][ns] or 0)  # noqa: E731
    d1 = max((i for i, r in enumerate(data) if "DEPBAR.LE gsb0, 0x1" in r[src]), key=samples)
    count = int(data[d1][ex])
    back = next(i for i in range(d1, len(data))
                if re.search(r"\bBRA\b", data[i][src]) and int(data[i][ex] or 0) >= 0.9 * count
                and (m := re.search(r"BRA (0x[0-9a-f]+)", data[i][src]))
                and int(m.group(1), 16) < int(data[d1][ad], 16))
    target = int(re.search(r"BRA (0x[0-9a-f]+)", data[back][src]).group(1), 16)
    head = next(i for i, r in enumerate(data) if int(r[ad], 16) == target)
    first_mma = next(i for i in range(head, d1) if "HGMMA" in data[i][src])
    rs = [i for i in range(first_mma, d1) if re.search(r"HGMMA\S* R\d+, R\d+, gdesc", data[i][src])]
    pv0 = rs[0] if rs else d1
    d0 = next((i for i in range(d1 + 1, back) if "DEPBAR.LE gsb0, 0x0" in data[i][src]), back)
    cut = [("turn + slots", head, first_mma), ("QK issue", first_mma, pv0), ("PV issue", pv0, d1),
           ("QK wait", d1, d1 + 1), ("softmax before PV wait", d1 + 1, d0), ("PV wait", d0, d0 + 1),
           ("softmax after", d0 + 1, back + 1)]
    return [(name, sum(samples(i) for i in range(a, b))) for name, a, b in cut], count


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--keys", default="", help="comma-separated key-tile widths, one per csv (per-key columns)")
    args = ap.parse_args()
    keys = [int(k) for k in args.keys.split(",")] if args.keys else []
    for n, path in enumerate(args.csv):
        hdr, data = load(path)
        regs, count = regions(hdr, data)
        total = sum(s for _, s in regs)
        print(f"{path}: loop {total} samples over {count} warp-iterations")
        for name, s in regs:
            extra = f"  {1e4 * s / count / keys[n] * 128:7.1f} per 128 keys (x1e-4)" if keys else ""
            print(f"  {name:24s} {s:7d} {100 * s / total:5.1f} %{extra}")


if __name__ == "__main__":
    main()
