"""One launch of an attention kernel of examples/kernels, for ncu / SASS inspection:

    ncu --kernel-name regex:flash --launch-skip 1 --launch-count 1 --section SpeedOfLight \\
        python bench/profile_attention.py [--kernel flash_attention] [--pipeline ws-hopper] [--L 4096] [--sass DIR]

With --sass DIR the kernel's PTX is written to DIR (assemble it with `ptxas -arch=sm_90a` and
read it with `cuobjdump --dump-sass`). Launches twice (a warm-up, then the profiled one)."""

import argparse
import math
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import wsdialects  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--kernel", default="flash_attention")
ap.add_argument("--pipeline", default="ws-hopper")
ap.add_argument("--L", type=int, default=4096)
ap.add_argument("--d", type=int, default=128)
ap.add_argument("--bh", type=int, default=128)
ap.add_argument("--sass", default="")
args = ap.parse_args()
k = wsdialects.compile(ROOT / "examples" / "kernels" / f"{args.kernel}.mlir", pipeline=args.pipeline)
if args.sass:
    Path(args.sass).mkdir(parents=True, exist_ok=True)
    (Path(args.sass) / f"{args.kernel}.ptx").write_text(k.ptx)
dt = torch.bfloat16 if "bf16" in args.kernel else torch.float16
q, kk, v = (torch.randn(args.bh, args.L, args.d, device="cuda", dtype=dt) for _ in range(3))
o = torch.empty_like(q)
for _ in range(2):
    k[(args.L + 127) // 128, args.bh](q, kk, v, o, args.L, 1 / math.sqrt(args.d))
torch.cuda.synchronize()
print("done", o.float().abs().mean().item())
