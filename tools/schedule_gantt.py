"""Draw the schedule `ws-schedule{arch=...}` chooses for a kernel's main loop as an SVG Gantt
chart (the organisation the pass picks, not only the split one the `ws-schedule` CLI solves).

    python tools/schedule_gantt.py examples/kernels/flash_attention_bf16.mlir OUT.svg [--arch h100]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import wsdialects  # noqa: E402
from wsdialects.schedule import render  # noqa: E402
from wsdialects.transforms.partition import kernels, main_loop  # noqa: E402
from wsdialects.transforms.schedule import SchedulePass  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("kernel")
ap.add_argument("out")
ap.add_argument("--arch", default="h100")
args = ap.parse_args()
module = wsdialects.parse_file(args.kernel)
k = kernels(module)[0]
lg, graph, sched = SchedulePass(arch=args.arch).choose(k, main_loop(k))
render.write_svg(args.out, render.gantt_svg(graph, sched))
print(f"{k.sym_name.data}: II {sched.ii}, L {sched.length}, {sched.warp_count} warps"
      f"{', ping-pong team' if lg.pingpong else ''}; wrote {args.out}")
