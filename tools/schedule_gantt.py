"""Draw the schedule `ws-schedule{arch=...}` chooses for a kernel's main loop as an SVG Gantt
chart (the organisation the pass picks, not only the split one the `ws-schedule` CLI solves),
and with --graph its dependence graph coloured by warp (group).

    python tools/schedule_gantt.py examples/kernels/flash_attention_bf16.mlir OUT.svg [--arch h100]
    python tools/schedule_gantt.py examples/kernels/flash_attention_fa4.mlir fa4.svg --arch b200 --graph g.svg
    python tools/schedule_gantt.py examples/kernels/flash_attention_bwd.mlir bwd.svg --arch b200 \\
        --normalize 48 --reg-limit 96 --warp-groups 3

--normalize, --time-limit, --reg-limit and --warp-groups are the pass's options of those names
(default: the machine model's / the kernel's).
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
ap.add_argument("--graph", metavar="SVG", help="also draw the dependence graph coloured by warp")
ap.add_argument("--normalize", type=int)
ap.add_argument("--time-limit", type=float)
ap.add_argument("--reg-limit", type=int)
ap.add_argument("--warp-groups", type=int)
args = ap.parse_args()
module = wsdialects.parse_file(args.kernel)
k = kernels(module)[0]
options = {key: getattr(args, key) for key in ("normalize", "time_limit", "reg_limit", "warp_groups")
           if getattr(args, key) is not None}
lg, graph, sched = SchedulePass(arch=args.arch, **options).choose(k, main_loop(k))
render.write_svg(args.out, render.gantt_svg(graph, sched))
if args.graph:
    render.write_svg(args.graph, render.graph_svg(graph, sched))
print(f"{k.sym_name.data} ({args.arch}): II {sched.ii}, L {sched.length}, {sched.warp_count} compute warps"
      f"{', ping-pong team' if lg.pingpong else ''}, {sched.solve_seconds:.1f} s; wrote {args.out}"
      f"{' and ' + args.graph if args.graph else ''}")
