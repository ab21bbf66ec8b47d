"""`ws-specialize{depth=D mma-depth=P cooperative=G persistent=true|false programs=N}`:
the whole warp-specialization pipeline (OVERVIEW.md stages 2-7) under one name.

Runs ws-partition, ws-distribute{depth=D}, ws-pipeline-mma{depth=P},
ws-pipeline-coarse, ws-cooperative{groups=G} (when G > 1) and ws-persistent{programs=N} (when
persistent). Defaults follow Tawa's measurements: D = 3, P = 2. The result is
still IR the interpreter runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from wsdialects.diagnostics import WsError


@dataclass(frozen=True)
class SpecializePass(ModulePass):
    """Partition, distribute, pipeline (and optionally cooperate / persist)."""

    name = "ws-specialize"
    depth: int = 3
    mma_depth: int = 2
    cooperative: int = 1
    persistent: bool = False
    programs: int = 132

    def passes(self) -> list[ModulePass]:
        from wsdialects.transforms.distribute import DistributePass
        from wsdialects.transforms.partition import PartitionPass
        from wsdialects.transforms.persistent import PersistentPass
        from wsdialects.transforms.pipeline_coarse import PipelineCoarsePass
        from wsdialects.transforms.pipeline_mma import PipelineMmaPass

        if self.mma_depth >= self.depth:
            raise WsError(f"ws-specialize: mma-depth ({self.mma_depth}) must be smaller than depth "
                          f"({self.depth})", "ws-opt")
        out: list[ModulePass] = [PartitionPass(), DistributePass(self.depth), PipelineMmaPass(self.mma_depth),
                                 PipelineCoarsePass()]
        if self.cooperative != 1:
            from wsdialects.transforms.cooperative import CooperativePass

            out.append(CooperativePass(self.cooperative))
        if self.persistent:
            out.append(PersistentPass(self.programs))
        return out

    def apply(self, ctx, op: ModuleOp) -> None:
        from wsdialects.diagnostics import verify

        for p in self.passes():
            p.apply(ctx, op)
            verify(op)
