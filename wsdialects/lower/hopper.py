"""`ws-hopper{depth=D}`: the whole path to Hopper code.

OVERVIEW.md defines `ws-hopper` as `ws-specialize` plus the lowering. `ws-specialize`
(stages 2-7) does not exist yet, so for now this pass runs the stages that do:
`ws-partition` then `ws-distribute{depth=D}`. The thread-level lowering (aref ->
mbarriers + TMA, warp groups -> dispatch with setmaxnreg, tiles -> wgmma fragments)
runs when the module is emitted with `-t llvm` or `-t ptx`
(`wsdialects/lower/to_llvm.py`, `wsdialects/lower/ptx.py`), so the IR this pass
leaves still prints, re-parses and runs in the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class HopperPass(ModulePass):
    name = "ws-hopper"
    depth: int = 3

    def apply(self, ctx, op: ModuleOp) -> None:
        from wsdialects.transforms.distribute import DistributePass
        from wsdialects.transforms.partition import PartitionPass

        PartitionPass().apply(ctx, op)
        DistributePass(depth=self.depth).apply(ctx, op)
