"""`ws-hopper{depth=D mma-depth=P cooperative=G persistent=true|false programs=N}`:
the whole path to Hopper code.

OVERVIEW.md defines `ws-hopper` as `ws-specialize` plus the lowering. This pass runs
`ws-specialize` with the same options (partition, distribute{depth=D},
pipeline-mma{depth=P}, and cooperative / persistent when asked), then the lowering
passes `ws-lower-aref` (aref rings -> mbarriers, shared-memory slots, TMA),
`ws-lower-warp-groups` (warp-group dispatch with setmaxnreg), `ws-lower-mma`
(dots -> wgmma fence / mma_async / commit_group / wait_group) and `ws-lower-layouts`
(every tile gets its thread layout: wgmma fragment, row/column slices, swizzled shared
memory). The IR it leaves is nvgpu / nvvm ops around tile ops on laid-out tiles; it
prints, re-parses and still runs in the interpreter. `-t llvm` / `-t ptx` then write
each op per thread (`wsdialects/lower/to_llvm.py`, `wsdialects/lower/ptx.py`).

Defaults differ from ws-specialize's (Tawa's D = 3, P = 2): ws-hopper uses depth = 4,
mma-depth = 1. A consumer that keeps P wgmma batches in flight still holds P ring slots
while it waits for the next one, so only D - P TMA loads can be in flight; with D = 3,
P = 2 that is one load, and the H100 GEMM (128x256x64, 48 KB a slot) waited on TMA latency
every iteration (0.64x cuBLAS at K = 16384, against 0.84x with P = 0). One batch in
flight (CUTLASS's choice; the two consumer warp groups already overlap each other's wgmma
issue) and four slots (192 KB, what shared memory holds next to the staged epilogue)
keep three loads in flight. bench/results/2026-11-21-gemm-h100-2.md has the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass

from wsdialects.transforms.specialize import SpecializePass


@dataclass(frozen=True)
class HopperPass(SpecializePass):
    """ws-specialize + ws-lower-aref + ws-lower-warp-groups + ws-lower-mma + ws-lower-layouts
    (same options as ws-specialize)."""

    name = "ws-hopper"
    depth: int = 4
    mma_depth: int = 1

    def passes(self) -> list[ModulePass]:
        from wsdialects.lower.lower_aref import LowerArefPass
        from wsdialects.lower.lower_layouts import LowerLayoutsPass
        from wsdialects.lower.lower_mma import LowerMmaPass
        from wsdialects.lower.lower_warp_groups import LowerWarpGroupsPass

        return [*super().passes(), LowerArefPass(), LowerWarpGroupsPass(), LowerMmaPass(), LowerLayoutsPass()]
