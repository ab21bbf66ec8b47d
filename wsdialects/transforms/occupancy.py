"""`ws-occupancy{ctas-per-sm=C}`: C CTAs of a warp-specialized kernel share each SM.

A kernel whose consumers are one warp group with a small tile (64x128: 64 accumulator
registers a thread) runs one CTA per SM at the 255 registers and the shared memory it
is given, and its tensor core waits while that CTA's only consumer runs its epilogue or
waits for a slot. With C CTAs per SM, one CTA's epilogue overlaps another's MMAs (the
ping-pong of CTAs instead of warp groups). The pass writes the decision on the kernel,
`ws.ctas_per_sm = C`, and gives the partitions budgets that fit a C-th of the register
file: producers keep theirs, the consumer groups share what is left (as `ws-distribute`
shares the whole file) up to what a thread gets at launch (65536 / (C x threads): ptxas
compiles every region within it at `.minnctapersm C`). What reads it: `ws-hopper` fits its rings in a C-th of the shared
memory (113 KB at C = 2), `ws-persistent` launches C programs per SM, `ws-lower-warp-groups`
checks the budgets against the CTA's share (`nvgpu.wg.dispatch ... ctas_per_sm C`), and
the emitter asks ptxas for C CTAs per SM (`.minnctapersm C`: at most 65536 / (C x threads)
registers a thread at launch). `ws-schedule` prices registers at one CTA per SM: where a
schedule no longer fits the smaller budget, ws-register-budget warns at the branch.

    func.func @k(...) attributes {tile.kernel, tile.num_warps = 4 : i32, ws.ctas_per_sm = 2 : i32} {
      warp_group.region {
        warp_group.partition 0 producer warps 4 regs 40 {...}
        warp_group.partition 1 consumer warps 4 regs 128 {...}    // was 256: 65536 / (2 x 256)
      }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.passes import ModulePass

from wsdialects.attributes import OCCUPANCY_ATTR
from wsdialects.diagnostics import WsError, error_at
from wsdialects.nvgpu.types import SM_CTAS, SM_THREADS
from wsdialects.transforms.distribute import PRODUCER_REGS, consumer_regs
from wsdialects.transforms.partition import PRODUCER, kernels, remark
from wsdialects.warp_group import RegionOp


def set_occupancy(kernel: func.FuncOp, region: RegionOp, ctas: int) -> None:
    """Write `ws.ctas_per_sm = ctas` on `kernel` and fit its partitions' register budgets to
    a `ctas`-th of the register file; a located error where the CTAs do not fit an SM."""
    threads = 32 * sum(p.warps for p in region.partitions)
    if threads * ctas > SM_THREADS:
        raise error_at(kernel, f"ws-occupancy: {ctas} CTAs of {threads} threads exceed the {SM_THREADS} threads "
                               "an SM holds")
    consumers = [p for p in region.partitions if p.pid != PRODUCER]
    producers = [p for p in region.partitions if p.pid == PRODUCER]
    if any(p.regs is not None and p.regs.value.data != PRODUCER_REGS for p in producers):
        raise error_at(region, f"ws-occupancy: the producer's register budget is not ws-distribute's "
                               f"({PRODUCER_REGS}): only ws-distribute's partitions can be refitted")
    # within the SM's 2048 threads the consumers keep at least 24 registers (setmaxnreg's least)
    regs = consumer_regs(max(sum(p.warps for p in consumers), 1), ctas)
    for p in consumers:
        p.regs = IntegerAttr(regs, 32)
    kernel.attributes[OCCUPANCY_ATTR] = IntegerAttr(ctas, 32)


@dataclass(frozen=True)
class OccupancyPass(ModulePass):
    """C CTAs per SM: the kernel says so (`ws.ctas_per_sm`) and its register budgets fit a C-th of the file."""

    name = "ws-occupancy"
    ctas_per_sm: int = 1

    def apply(self, ctx, op: ModuleOp) -> None:
        if not 1 <= self.ctas_per_sm <= SM_CTAS:
            raise WsError(f"ws-occupancy: ctas-per-sm must be from 1 to {SM_CTAS}, got {self.ctas_per_sm}", "ws-opt")
        for kernel in kernels(op):
            regions = [o for o in kernel.body.walk() if isinstance(o, RegionOp)]
            if not regions:
                remark(kernel, "ws-occupancy: kernel not warp-specialized (run ws-distribute first); its CTAs per "
                               "SM are left to the hardware")
                continue
            if OCCUPANCY_ATTR in kernel.attributes:
                raise error_at(kernel, "ws-occupancy: the kernel's CTAs per SM are set already "
                                       f"({OCCUPANCY_ATTR} = {kernel.attributes[OCCUPANCY_ATTR].value.data})")
            set_occupancy(kernel, regions[0], self.ctas_per_sm)
