"""Writing tools/calibrate.py's GPU measurements into a machine model (no GPU needed):
each measured rule's `per_cycle` rounded to 2^k or 1.5 x 2^k, the wgmma latency, and
`chain_latency`, the composite softmax factors fitted to the measured softmax step.

    python tools/machine_fit.py bench/results/DATE-calibrate-h100.json \
        --write-machine wsdialects/schedule/machines/h100.json [--date DATE]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SOFTMAX_KEYS = (32, 64, 128)  # key-tile widths of the softmax measurement (64xN fp32 S and a 64x128
# O fit one warp group's registers up to N = 128; wider tiles spill in the Triton kernel)
# The softmax's dependent chain as the machine model sees it in attention's graph (S scaled, its
# row max, S minus the max, exp2, P converted for P·V): the ops whose occupancies, times the
# fitted factor, make the measured softmax step.
SOFTMAX_CHAIN = (("arith.mulf", False), ("tile.reduce", True), ("arith.subf", False), ("math.exp2", False),
                 ("arith.truncf", False))


def nice(v: float) -> int:
    """The nearest 2^k or 1.5 x 2^k (k >= 0)."""
    cands = [c for k in range(0, 16) for c in (2 ** k, 3 * 2 ** k // 2) if c >= 1]
    return min(cands, key=lambda c: abs(math.log(c / v)))


# machine-model rule -> measurement that sets its per_cycle
RULES = {"tile.dot": "tile.dot", "math.exp2": "math.exp2", "math.exp": "math.exp2", "math.log2": "math.exp2",
         "math.rsqrt": "math.exp2", "arith.divf": "math.exp2", "arith.*": "arith.fma",
         "tile.reduce": "arith.fma", "arith.truncf": "arith.truncf+extf", "arith.extf": "arith.truncf+extf",
         "tile.load": "tile.load", "tile.store": "tile.load", "tile.desc_load": "tile.desc_load",
         "tile.desc_store": "tile.desc_load"}


def chain_fit(data: dict, m: dict) -> dict:
    """`chain_latency`'s factors: for each measured softmax (alone, beside a partner), the
    least-squares factor f with f x (the model's chain of SOFTMAX_CHAIN for a 64xN tile) =
    the measured softmax clocks, over the key widths of SOFTMAX_KEYS; the model takes it
    rounded to a half (:func:`half`), the fit itself is kept beside it."""
    sys.path.insert(0, str(ROOT))
    from wsdialects.schedule.machine import Machine, TileInfo

    machine = Machine(data)
    soft = m.get("softmax 64xN clocks (N, step, P·V alone, softmax)") or {}
    out = {}
    for key, name in (("1 warp group(s) per SM", "alone"), ("2 warp group(s) per SM", "with_partner")):
        pts = []
        for n, _, _, clocks in soft.get(key, ()):
            if n not in SOFTMAX_KEYS:
                continue
            tile = TileInfo((64, n), 32)
            row = TileInfo((64,), 32)
            chain = sum(machine.op_cost(op, [row if reduces else tile], [tile]).cycles for op, reduces in SOFTMAX_CHAIN)
            pts.append((chain, clocks))
        if pts:
            fit = sum(c * t for c, t in pts) / sum(c * c for c, _ in pts)
            out[f"{name} (fit)"] = round(fit, 3)
            out[name] = half(fit)
    return out if len(out) == 4 else {}


def half(v: float) -> float:
    """A factor rounded to a half (at least 1), like the rates' 2^k / 1.5 x 2^k: x1.5 keeps the
    2^k occupancies on that lattice, so the §5.2 normalization keeps a coarse scale (x1.25 made
    80-cycle ops beside 64- and 128-cycle ones: head dim 64's search took 17 s instead of 5)."""
    return max(1.0, round(v * 2) / 2)


def write_machine(path: Path, m: dict, date: str, command: str) -> None:
    data = json.loads(path.read_text())
    for rule, key in RULES.items():
        if m.get(key) and rule in data["costs"]:
            data["costs"][rule]["per_cycle"] = nice(m[key])
    if m.get("tile.dot latency") and m["tile.dot latency"] > 0:
        data["costs"]["tile.dot"]["latency"] = nice(m["tile.dot latency"])
    fit = chain_fit(data, m)
    if fit:
        data["chain_latency"] = {"units": ["ALU", "SFU"], **fit}
    data["measured"] = {"date": date, "command": command,
                        "device": m["device"],
                        "values": {k: (round(v, 2) if isinstance(v, float) else v) for k, v in m.items()}}
    path.write_text(json.dumps(data, indent=2) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description="write tools/calibrate.py's measurements into a machine model")
    ap.add_argument("measurements", help="a JSON file tools/calibrate.py wrote")
    ap.add_argument("--write-machine", required=True)
    ap.add_argument("--date", default=None, help="the measurement's date (default: the file name's)")
    args = ap.parse_args()
    date = args.date or Path(args.measurements).name[:10]
    write_machine(Path(args.write_machine), json.loads(Path(args.measurements).read_text()), date,
                  f"python tools/calibrate.py (on the GPU) && python tools/machine_fit.py {args.measurements} "
                  f"--write-machine {args.write_machine}")
    print("wrote", args.write_machine, file=sys.stderr)


if __name__ == "__main__":
    main()
