"""`ws-producer-registers{regs=R}`: a producer that only issues TMA copies goes down towards R
registers per thread, so that its consumers get the most the CTA's registers hold.

ws-distribute gives the producer warp group PRODUCER_REGS (40) and the consumers what is left
(232 per thread beside two consumer groups). A producer whose tiles all land in shared memory
(`tile.desc_load`: TMA; no tile of its own in registers) needs far fewer: FlashAttention-3 runs
its producer at 24 beside two 240-register consumer groups. A loop that keeps more tiles alive
per consumer thread (ws-pipeline-coarse{softmax-overlap=qk}: two score tiles beside O) needs
those 8 registers. The pass gives each consumer partition the largest multiple of 8 that fits
beside the producer at R (at most 256) in the registers the CTA holds from launch (168 a thread
for three warp groups: setmaxnreg only moves registers between them, and a `.inc` they do not
cover waits forever), and the producer what that leaves (at least R, never more than it had:
24 beside two 240-register groups, FlashAttention-3's split). A producer that
holds tiles in registers (pointer loads, a transpose) is left as it is, with a remark, and so
is a CTA sharing its SM (ws-occupancy: a thread gets no more than its launch share there).

    warp_group.partition 0 producer warps 4 regs 40 {...}      warp_group.partition 0 producer warps 4 regs 24 {...}
    warp_group.partition 1 consumer0 warps 4 regs 232 {...} ==> warp_group.partition 1 consumer0 warps 4 regs 240 {...}
    warp_group.partition 2 consumer1 warps 4 regs 232 {...}     warp_group.partition 2 consumer1 warps 4 regs 240 {...}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.passes import ModulePass

from wsdialects.attributes import ctas_per_sm
from wsdialects.diagnostics import WsError
from wsdialects.nvgpu.types import register_pool
from wsdialects.transforms.distribute import MAX_REGS
from wsdialects.transforms.partition import PRODUCER, remark
from wsdialects.warp_group import PartitionOp, RegionOp

MIN_REGS = 24  # setmaxnreg's smallest count


def holds_tiles(producer: PartitionOp) -> str | None:
    """The name of an op that leaves a tile in the producer's registers (None: all its tiles
    are TMA copies into shared memory)."""
    for o in producer.body.walk():
        if o.name in ("tile.desc_load", "aref.get"):  # a TMA copy, a ring slot: shared memory
            continue
        if any(isinstance(r.type, TensorType) for r in o.results):
            return o.name
    return None


@dataclass(frozen=True)
class ProducerRegistersPass(ModulePass):
    """Give the consumers the registers a TMA-only producer can spare (down to `regs`)."""

    name = "ws-producer-registers"
    regs: int = MIN_REGS

    def apply(self, ctx, op: ModuleOp) -> None:
        if not MIN_REGS <= self.regs <= MAX_REGS or self.regs % 8:
            raise WsError(f"{self.name}: regs must be a multiple of 8 from {MIN_REGS} to {MAX_REGS}, "
                          f"got {self.regs}", "ws-opt")
        for region in [r for r in op.walk() if isinstance(r, RegionOp)]:
            self.run_on(region)

    def run_on(self, region: RegionOp) -> None:
        producers = [p for p in region.partitions if p.pid == PRODUCER]
        if len(producers) != 1 or producers[0].regs is None:
            return
        producer = producers[0]
        if producer.regs.value.data <= self.regs:
            return
        if (held := holds_tiles(producer)) is not None:
            remark(producer, f"{self.name}: the producer keeps its {producer.regs.value.data} registers: "
                             f"'{held}' leaves a tile in its registers")
            return
        if ctas_per_sm(region) > 1:
            return  # a thread gets no more than its launch share: nothing to hand on
        consumers = [p for p in region.partitions if p is not producer]
        threads = sum(p.warps * 32 for p in consumers)
        if not threads:
            return
        pool = register_pool(threads + producer.warps * 32)  # what the CTA holds from launch
        free = pool - producer.warps * 32 * self.regs
        each = min(MAX_REGS, free // threads // 8 * 8)
        if all(p.regs is None or p.regs.value.data >= each for p in consumers):
            return  # the consumers have all they could get already
        # the producer keeps what the consumers' new budget leaves (at least `regs`)
        left = (pool - each * threads) // (producer.warps * 32) // 8 * 8
        producer.regs = IntegerAttr(min(producer.regs.value.data, max(left, self.regs)), 32)
        for p in consumers:
            if p.regs is not None and p.regs.value.data < each:
                p.regs = IntegerAttr(each, 32)
