"""`ws-specialize{depth=D mma-depth=P cooperative=G pingpong=true|false team-stores=gather|split
persistent=true|false programs=N tile-group=T ctas-per-sm=C v-transpose=auto|producer|consumer
softmax-overlap=pv|qk}`: the whole warp-specialization pipeline (stages 2-7, ws-partition to
ws-persistent) under one name.

It runs ws-host-descriptors and ws-tma-load first (descriptors the kernel makes from its
arguments, and bounds-masked pointer-tile loads, become descriptors the launch builds), then
ws-partition, ws-distribute{depth=D}, ws-pipeline-mma{depth=P}, ws-pipeline-coarse{softmax-overlap=S}
(S = pv: a softmax overlaps the previous tile's P·V wgmma; qk: the next tile's QK^T as well,
and ws-producer-registers then gives a TMA-only producer's spare registers to the consumers),
then, when asked: ws-cooperative{groups=G stores=S} (G > 1; S = `team-stores`: a TMA store of
the team's tile gathered into group 0's, or one per group), ws-occupancy{ctas-per-sm=C}
(C > 1), ws-persistent{programs=N tile-group=T} (`persistent`) and ws-pingpong (`pingpong`,
which needs G > 1; it runs after ws-persistent so that the team's first and last turns are
taken once, outside the tile loop), and ws-producer-transpose{placement=V} (V = `v-transpose`:
an fp8 V transposed by the producer into a ring of its own, or left to the consumers'
ws-stage-operands). Last, ws-verify-sync checks the synchronization: a
violation is an internal compiler error, except in a kernel that was warp-specialized already
on input, which is checked first and whose violation is the user's error.

The defaults are Tawa's, D = 3 and P = 2. When `ws-schedule` planned a cooperative team of k
warp groups, a ping-pong team gets G = k and `pingpong`; a lockstep team stays one partition
of its k groups (the wgmma layout splits the rows between them; as two branches, ptxas would
serialize their wgmmas). The result is still IR the interpreter runs:

    func.func @gemm(...) attributes {              func.func @gemm(...) attributes {tile.kernel, tile.num_warps = 8 : i32,
        tile.kernel, tile.num_warps = 4 : i32} {        ws.distributed = "producer warps 4, consumer warps 4"} {
      scf.for %k = ... {                              %aref_a_b = aref.create : !aref.ring<..., depth = 3>
        %a = tile.desc_load ...              ==>      warp_group.region {
        %d = tile.dot %a, %bt, %acc ...                 warp_group.partition 0 producer warps 4 regs 40 {... aref.put ...}
      }                                                 warp_group.partition 1 consumer warps 4 regs 256 {... mma.async_dot ...}
      tile.desc_store ...                             }
    }                                               }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from wsdialects.diagnostics import WsError


def scheduled_team(module: ModuleOp) -> tuple[int, bool]:
    """The team `ws-schedule` planned: (k, pingpong) from `ws.schedule = {cooperative =
    k, pingpong = true}` on a loop (a tile above one group's registers, or the
    groups taking turns), else (1, False)."""
    from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr

    team, pingpong = 1, False
    for o in module.walk():
        sched = o.attributes.get("ws.schedule")
        if isinstance(sched, DictionaryAttr):
            if isinstance(k := sched.data.get("cooperative"), IntegerAttr):
                team = max(team, k.value.data)
            pp = sched.data.get("pingpong")
            pingpong |= isinstance(pp, IntegerAttr) and bool(pp.value.data)
    return team, pingpong


@dataclass(frozen=True)
class SpecializePass(ModulePass):
    """Partition, distribute, pipeline (and optionally cooperate, ping-pong, persist): stages 2-7."""

    name = "ws-specialize"
    depth: int = 3
    mma_depth: int = 2
    cooperative: int = 1
    pingpong: bool = False
    persistent: bool = False
    programs: int = 0  # ws-persistent's programs (0: one per CTA the SMs hold, 132 x C)
    tile_group: int = -1  # ws-persistent's tile order: bands of this many x (0: serpentine; -1: its choice)
    ctas_per_sm: int = 1  # ws-occupancy: CTAs sharing an SM
    team_stores: str = "gather"  # ws-cooperative's stores: gathered into group 0's, or one per group (split)
    # ws-producer-transpose's placement of an fp8 V's transpose: producer, consumer (ws-stage-operands), auto
    v_transpose: str = "auto"
    # ws-pipeline-coarse's overlap of an attention-like loop's softmax: pv (U one iteration late)
    # or qk (also the next tile's first dot issued before the softmax)
    softmax_overlap: str = "pv"

    def passes(self) -> list[ModulePass]:
        from wsdialects.transforms.distribute import DistributePass
        from wsdialects.transforms.partition import PartitionPass
        from wsdialects.transforms.persistent import PersistentPass
        from wsdialects.transforms.pipeline_coarse import PipelineCoarsePass
        from wsdialects.transforms.pipeline_mma import PipelineMmaPass

        self.check_options()
        out: list[ModulePass] = [PartitionPass(), DistributePass(self.depth), PipelineMmaPass(self.mma_depth),
                                 PipelineCoarsePass(detail=False, softmax_overlap=self.softmax_overlap)]
        if self.team_stores == "split" and self.cooperative < 2:
            raise WsError(f"{self.name}: team-stores=split splits the stores of a cooperative team; it needs "
                          f"cooperative >= 2, got {self.cooperative}", "ws-opt")
        if self.cooperative != 1:
            from wsdialects.transforms.cooperative import CooperativePass

            out.append(CooperativePass(self.cooperative, self.team_stores))
        if self.ctas_per_sm != 1:
            from wsdialects.transforms.occupancy import OccupancyPass

            out.append(OccupancyPass(self.ctas_per_sm))
        if self.tile_group != -1 and not self.persistent:
            raise WsError(f"{self.name}: tile-group orders the tiles of a persistent kernel; it needs "
                          f"persistent=true", "ws-opt")
        if self.persistent:
            out.append(PersistentPass(self.programs, self.tile_group))
        if self.pingpong:  # after ws-persistent: the first turn and the last are taken once, outside the tile loop
            if self.cooperative < 2:
                raise WsError(f"{self.name}: pingpong orders the groups of a cooperative team; it needs "
                              f"cooperative >= 2, got {self.cooperative}", "ws-opt")
            from wsdialects.transforms.pingpong import PingPongPass

            out.append(PingPongPass())
        if self.softmax_overlap == "qk":  # two score tiles beside O: the consumers take the producer's spare registers
            from wsdialects.transforms.producer_registers import ProducerRegistersPass

            out.append(ProducerRegistersPass())
        from wsdialects.transforms.producer_transpose import ProducerTransposePass

        out.append(ProducerTransposePass(self.v_transpose))  # last: on the partitions as they are built
        return out

    def check_options(self) -> None:
        """Each option's own range first, in this pass's spelling of it (`mma-depth`, not the
        sub-pass's `depth`), then how the options combine: a bad value is named as written."""
        from wsdialects.nvgpu.types import SM_CTAS

        ranges = [("depth", self.depth, 1, None, "slots per aref ring"),
                  ("mma-depth", self.mma_depth, 0, None, "wgmma batches in flight"),
                  ("cooperative", self.cooperative, 1, None, "consumer warp groups per tile; 1: no team"),
                  ("ctas-per-sm", self.ctas_per_sm, 1, SM_CTAS, "CTAs sharing an SM"),
                  ("programs", self.programs, 0, None, "persistent programs; 0: one per CTA the SMs hold"),
                  ("tile-group", self.tile_group, -1, None, "row blocks per band; 0: x fastest, -1: chosen per kernel")]
        for option, value, low, high, what in ranges:
            if value < low or (high is not None and value > high):
                want = f"from {low} to {high}" if high is not None else f">= {low}"
                raise WsError(f"{self.name}: {option} ({what}) must be {want}, got {value}", "ws-opt")
        if self.v_transpose not in ("auto", "producer", "consumer"):
            raise WsError(f"{self.name}: v-transpose must be auto, producer or consumer, got '{self.v_transpose}'",
                          "ws-opt")
        if self.softmax_overlap not in ("pv", "qk"):
            raise WsError(f"{self.name}: softmax-overlap must be pv or qk, got '{self.softmax_overlap}'", "ws-opt")
        if self.team_stores not in ("gather", "split"):
            raise WsError(f"{self.name}: team-stores must be gather or split, got '{self.team_stores}'", "ws-opt")
        if self.mma_depth >= self.depth:
            raise WsError(f"{self.name}: mma-depth ({self.mma_depth}) must be smaller than depth ({self.depth}): "
                          f"a consumer keeps a ring slot per wgmma batch in flight, and the producer needs a free "
                          f"one to load into (with depth={self.depth}, use mma-depth"
                          f"{'=0' if self.depth == 1 else f' from 0 to {self.depth - 1}'})", "ws-opt")

    def apply(self, ctx, op: ModuleOp) -> None:
        from wsdialects.transforms.host_descriptors import HostDescriptorsPass
        from wsdialects.transforms.tma_load import TmaLoadPass

        HostDescriptorsPass(remarks=False).apply(ctx, op)  # descriptors made from arguments: built at launch
        TmaLoadPass(remarks=False).apply(ctx, op)  # pointer-tile loads become TMA loads first
        me = self.prepare(op)
        run_composite(self.name, ctx, op, me.passes(), check=True)

    def prepare(self, op: ModuleOp) -> SpecializePass:
        """Check the input (schedule, warp-specialized sync: the user's errors) and return the
        pass to run: `self`, or a ping-pong team of the size `ws-schedule` planned."""
        from wsdialects.transforms.schedule_check import check_schedule
        from wsdialects.transforms.verify_sync import verify_input_sync

        check_schedule(op)  # before scheduled_team reads ws.schedule
        verify_input_sync(op)  # warp-specialized input is the user's: its defects are user errors
        team, pingpong = scheduled_team(op)
        if self.cooperative == 1 and team > 1 and (pingpong or self.pingpong):
            # the schedule planned a ping-pong team: one partition per member, taking turns.
            # A lockstep team stays one partition of all its groups (the wgmma layout splits
            # the rows): as two branches, ptxas serializes their wgmmas (C7520, divergent
            # warpgroup.arrive)
            return replace(self, cooperative=team, pingpong=True)
        return self


def run_composite(name: str, ctx, op: ModuleOp, passes: list[ModulePass], check: bool, verify: bool = True) -> None:
    """Run the sub-passes of composite pass `name`, then verify once (MLIR's pass manager
    verifies between the passes of a pipeline, not inside one pass); with `check`,
    ws-verify-sync on the aref IR (before a lowering) and at the end. IR that does not
    verify is a compiler defect: an internal error (exit 2) at the op, naming `name`; so is
    a sub-pass that fails on IR an earlier sub-pass broke. `verify=False`: the caller verifies later."""
    from wsdialects.transforms.verify_sync import verify_sync

    try:
        for p in passes:
            if check and p.name == "ws-lower-aref":
                verify_sync(op)
            p.apply(ctx, op)
    except Exception:
        verify_composite(name, op)  # a broken IR explains the failure better: report it first
        raise
    if verify:
        verify_composite(name, op)
    if check:
        verify_sync(op)


def verify_composite(name: str, op: ModuleOp) -> None:
    """Verify `op` after the sub-passes of `name`; a failure is an internal error at the op."""
    from wsdialects.diagnostics import PassDefect, mark_verified, verify

    try:
        verify(op)
    except WsError as e:
        raise PassDefect(f"internal compiler error: {name} produced IR that does not verify: {e.message} "
                         "(please report it)", e.file, e.line, e.col) from None
    mark_verified(op)
