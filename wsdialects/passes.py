"""The wsdialects pass pipeline, in one place.

`PIPELINE` lists every pass `ws-opt -p` knows, in the order the compiler runs
them (docs/passes.md describes each). Passes are imported lazily so that `ws-opt`
starts fast and a broken pass never stops the others from loading.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

# (pass name, "module:ClassName"), in pipeline order.
PIPELINE: list[tuple[str, str]] = [
    # Tile level, first in ws-specialize and ws-hopper: descriptors made on the device from arguments
    # (tile.make_desc) become descriptor arguments the launch builds.
    ("ws-host-descriptors", "wsdialects.transforms.host_descriptors:HostDescriptorsPass"),
    # Tile level, first in ws-specialize and ws-hopper: bounds-masked pointer-tile loads become TMA loads.
    ("ws-tma-load", "wsdialects.transforms.tma_load:TmaLoadPass"),
    # Tile level, first in ws-hopper: bounds-masked pointer-tile stores become TMA stores.
    ("ws-tma-store", "wsdialects.transforms.tma_store:TmaStorePass"),
    # Tile level, first in ws-hopper where an option is left at auto: the organisation from a cost model.
    ("ws-choose-organisation", "wsdialects.transforms.organisation:ChooseOrganisationPass"),
    ("ws-partition", "wsdialects.transforms.partition:PartitionPass"),
    ("ws-distribute", "wsdialects.transforms.distribute:DistributePass"),
    ("ws-pipeline-mma", "wsdialects.transforms.pipeline_mma:PipelineMmaPass"),
    ("ws-pipeline-coarse", "wsdialects.transforms.pipeline_coarse:PipelineCoarsePass"),
    ("ws-cooperative", "wsdialects.transforms.cooperative:CooperativePass"),
    ("ws-pingpong", "wsdialects.transforms.pingpong:PingPongPass"),
    # C CTAs per SM: the register budgets of a C-th of the file (before ws-persistent, which launches C per SM).
    ("ws-occupancy", "wsdialects.transforms.occupancy:OccupancyPass"),
    ("ws-persistent", "wsdialects.transforms.persistent:PersistentPass"),
    # Last in ws-specialize: an fp8 V (N-contiguous B) transposed by the producer into a ring of its own.
    ("ws-producer-transpose", "wsdialects.transforms.producer_transpose:ProducerTransposePass"),
    ("ws-producer-registers", "wsdialects.transforms.producer_registers:ProducerRegistersPass"),
    ("ws-specialize", "wsdialects.transforms.specialize:SpecializePass"),
    # Stage 8 (OVERVIEW.md order); in a pipeline it runs before ws-partition,
    # whose partitions (and ws-distribute's) then follow its warp assignment.
    ("ws-schedule", "wsdialects.transforms.schedule:SchedulePass"),
    ("ws-hopper", "wsdialects.lower.hopper:HopperPass"),
    ("ws-verify-sync", "wsdialects.transforms.verify_sync:VerifySyncPass"),
    # Stages 9-10 (Tawa §III-E): the lowering passes ws-hopper runs after ws-specialize.
    # ws-hopper runs it where separate TMA-store staging does not fit beside its rings.
    ("ws-stage-in-slot", "wsdialects.transforms.stage_in_slot:StageInSlotPass"),
    ("ws-lower-aref", "wsdialects.lower.lower_aref:LowerArefPass"),
    ("ws-lower-warp-groups", "wsdialects.lower.lower_warp_groups:LowerWarpGroupsPass"),
    # A TMA producer branch runs in its first warp only (FA3's / CUTLASS's producer warp).
    ("ws-lead-warp", "wsdialects.lower.lead_warp:LeadWarpPass"),
    # Register tiles wgmma reads from shared memory (a transposed A, a B): stored in the branch.
    ("ws-stage-operands", "wsdialects.lower.stage_operands:StageOperandsPass"),
    ("ws-lower-mma", "wsdialects.lower.lower_mma:LowerMmaPass"),
    ("ws-lower-layouts", "wsdialects.lower.lower_layouts:LowerLayoutsPass"),
    # After the layouts (ws-hopper runs it there): interior tiles skip their boundary masks.
    ("ws-version-masks", "wsdialects.transforms.version_masks:VersionMasksPass"),
    # Last in ws-hopper: registers per thread of each branch, a warning where a tile will spill.
    ("ws-register-budget", "wsdialects.lower.register_budget:RegisterBudgetPass"),
    # After ws-hopper (it needs the layouts): a share of each exp2 tile on the FMA pipe (a polynomial).
    ("ws-exp2-split", "wsdialects.transforms.exp2_split:Exp2SplitPass"),
]


def _loader(target: str) -> Callable[[], type[ModulePass]]:
    module, cls = target.split(":")
    return lambda: getattr(importlib.import_module(module), cls)


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of the pass class, for xDSL's PassPipeline."""
    return {name: _loader(target) for name, target in PIPELINE}
