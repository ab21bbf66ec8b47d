"""`check_sync(module)`: the static synchronization check of every warp-specialized
kernel in a module (see `wsdialects.sync`).

For each `warp_group.region` / `nvgpu.wg.dispatch`: the static rules, then, for each
input profile of `skeleton.PROFILES` (every integer argument 1, 700 or 300 with
different program ids and grids, halved while the run is too long), every
partition's trace is checked (`rules.check_trace`) and run against the others
(`simulate.Simulation`). The first defect raises `Violation` at its op.
"""

from __future__ import annotations

from xdsl.ir import Operation

from wsdialects.sync.rules import check_static, check_trace
from wsdialects.sync.simulate import Simulation
from wsdialects.sync.skeleton import CONTAINERS, PROFILES, Unsupported, control_slice, traces


def kernels_to_check(module: Operation) -> list[Operation]:
    """The functions holding a warp-specialized region."""
    return [f for f in module.walk() if f.name == "func.func"
            and any(o.name in CONTAINERS for o in f.walk())]


def check_sync(module: Operation) -> int:
    """Check every warp-specialized kernel of `module`; returns how many traces were run."""
    runs = 0
    for kernel in kernels_to_check(module):
        for c in [o for o in kernel.walk() if o.name in CONTAINERS]:
            check_static(c)
        relevant, plans, acts = control_slice(kernel), {}, {}
        for profile in PROFILES:
            try:
                found = traces(kernel, profile, relevant, plans)
            except Unsupported:
                break  # control flow the skeleton cannot follow: the static rules are all we check
            for tr in found or ():
                check_trace(tr)
                Simulation(tr, acts).run()
                runs += 1
    return runs
