"""One launch of a GEMM kind of bench/gemm_kinds.py (or its torch peer), for ncu / SASS inspection:

    ncu --kernel-name regex:. --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        python tools/profile_gemm_kind.py --kind d [--variant 'ws-hopper{persistent=true}'] [--K 4096] [--peer]

Launches twice (a warm-up, then the profiled one); `--peer` launches the kind's first torch op instead."""

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
from gemm_kinds import compile_kind  # noqa: E402
from gemm_kinds_specs import KINDS  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--kind", default="d", choices=sorted(KINDS))
ap.add_argument("--variant", default="ws-hopper")
ap.add_argument("--K", type=int, default=4096)
ap.add_argument("--peer", action="store_true")
args = ap.parse_args()
kind = KINDS[args.kind]
setup = kind.setup(torch, args.K)
run = setup["peers"][0][1] if args.peer else setup["launcher"](compile_kind(kind, args.variant))
for _ in range(2):
    run()
torch.cuda.synchronize()
print("done", args.kind, "peer" if args.peer else args.variant)
