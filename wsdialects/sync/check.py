"""`check_sync(module)`: the static synchronization check of every warp-specialized
kernel in a module (see `wsdialects.sync`).

For each `warp_group.region` / `nvgpu.wg.dispatch`: the static rules, then, for each
input profile of `skeleton.PROFILES` (every integer argument 1, 700 or 300 with
different program ids and grids, halved while the run is too long), every
partition's trace is checked (`rules.check_trace`) and run against the others
(`simulate.Simulation`). The first defect raises `Violation` at its op.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

from xdsl.ir import Operation

from wsdialects.sync.rules import check_static, check_trace
from wsdialects.sync.simulate import Simulation, acts_of
from wsdialects.sync.skeleton import CONTAINERS, PROFILES, Unsupported, control_slice, traces


def kernels_to_check(module: Operation) -> list[Operation]:
    """The functions holding a warp-specialized region."""
    return [f for f, _ in _containers_by_kernel(module)]


def _containers_by_kernel(module: Operation) -> list[tuple[Operation, list[Operation]]]:
    """Each function of `module` holding a warp-specialized region, with the regions /
    dispatches inside it, both in walk order: one walk of the module."""
    funcs, held = [], {}
    for o in module.walk():
        if o.name == "func.func":
            funcs.append(o)
        elif o.name in CONTAINERS:
            f = o.parent_op()
            while f is not None:
                if f.name == "func.func":
                    held.setdefault(f, []).append(o)
                f = f.parent_op()
    return [(f, held[f]) for f in funcs if f in held]


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off for the block (as it was after). The check makes
    hundreds of thousands of short-lived objects (values, events, clocks) and no cycles worth
    collecting before it ends, and each collection the allocations trigger walks the young
    objects and, every so often, the whole heap, where a compiler run or the test suite keeps
    many modules: ~25 % of the check's time on the bundled kernels' corpus."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def check_sync(module: Operation) -> int:
    """Check every warp-specialized kernel of `module`; returns how many traces were run."""
    with _collector_paused():
        return _check(module)


def _check(module: Operation) -> int:
    runs = 0
    for kernel, containers in _containers_by_kernel(module):
        acts = {}  # id(party op) -> what it does (`acts_of`), shared by the kernel's traces
        for c in containers:
            for party_op, ops in check_static(c).items():
                acts[id(party_op)] = acts_of(ops)
        relevant, plans = control_slice(kernel), {}
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
