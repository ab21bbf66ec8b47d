"""`ws-hopper{depth=D mma-depth=P cooperative=G persistent=true|false programs=N}`:
the whole path to Hopper code.

OVERVIEW.md defines `ws-hopper` as `ws-specialize` plus the lowering. This pass runs
`ws-specialize` with the same options (partition, distribute{depth=D},
pipeline-mma{depth=P}, and cooperative / persistent when asked), then the lowering
passes `ws-lower-aref` (aref rings -> mbarriers, shared-memory slots, TMA) and
`ws-lower-warp-groups` (warp-group dispatch with setmaxnreg). The IR it leaves is
nvgpu / nvvm ops around tile ops; it prints, re-parses and still runs in the
interpreter. Tiles -> threads (wgmma fragments, per-register elementwise code,
masked stores) happens when the module is emitted with `-t llvm` or `-t ptx`
(`wsdialects/lower/to_llvm.py`, `wsdialects/lower/ptx.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass

from wsdialects.transforms.specialize import SpecializePass


@dataclass(frozen=True)
class HopperPass(SpecializePass):
    """ws-specialize + ws-lower-aref + ws-lower-warp-groups (same options as ws-specialize)."""

    name = "ws-hopper"

    def passes(self) -> list[ModulePass]:
        from wsdialects.lower.lower_aref import LowerArefPass
        from wsdialects.lower.lower_warp_groups import LowerWarpGroupsPass

        return [*super().passes(), LowerArefPass(), LowerWarpGroupsPass()]
