"""`ws-lower-warp-groups`: warp_group regions -> warp-group dispatch with setmaxnreg.

A `warp_group.region` whose partitions have W_0, W_1, ... warps becomes one
`nvgpu.wg.dispatch` over 32·ΣW_i threads with a branch per partition covering
warps [ΣW_<i, ΣW_≤i) (whole warp groups, in partition order). A partition with a
register budget R starts with `nvgpu.setmaxnreg dec R` when R is below the
per-thread registers at launch (65536 / threads, rounded down to 8) and `inc R`
when above; the budgets must fit the register file (a `.inc` that does not fit
blocks forever). `warp_group.barrier` in partition i becomes the named barrier
`nvvm.barrier (i + 1) threads 32·W_i` (barrier 0 is the CTA's).

    warp_group.region {                         nvgpu.wg.dispatch threads 384 {
      warp_group.partition 0 producer             nvgpu.wg.branch warps 0 to 4 "producer" {
          warps 4 regs 40 {...}          ==>        nvgpu.setmaxnreg dec 40 ...}
      warp_group.partition 1 consumer             nvgpu.wg.branch warps 4 to 12 "consumer" {
          warps 8 regs 232 {...}                    nvgpu.setmaxnreg inc 232 ...}
    }                                           }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from wsdialects.diagnostics import error_at
from wsdialects.nvgpu import REGFILE, BranchOp, DispatchOp, SetMaxNRegOp
from wsdialects.nvvm import BarrierOp
from wsdialects.warp_group import BarrierOp as WgBarrierOp
from wsdialects.warp_group import RegionOp


def lower_region(region: RegionOp) -> DispatchOp:
    parts = region.partitions
    warps = sum(p.warps for p in parts)
    threads = warps * 32
    if threads > 1024:
        raise error_at(region, f"ws-lower-warp-groups: {threads} threads per CTA exceed 1024")
    disp = DispatchOp(threads)
    entry = disp.entry_regs()
    budget = sum((p.regs.value.data if p.regs is not None else entry) * 32 * p.warps for p in parts)
    if budget > REGFILE:
        raise error_at(region, f"ws-lower-warp-groups: register budgets need {budget} registers, the register "
                               f"file has {REGFILE}")
    first = 0
    for idx, p in enumerate(parts):
        if first % 4 or p.warps % 4:
            raise error_at(p, f"ws-lower-warp-groups: partition {p.pid} ({p.warps} warps from warp {first}) is "
                              "not made of whole warp groups")
        br = BranchOp(first, p.warps, p.role_name)
        block = br.body.block
        regs = p.regs.value.data if p.regs is not None else None
        if regs is not None and regs != entry:
            block.add_op(SetMaxNRegOp("dec" if regs < entry else "inc", regs))
        for o in list(p.body.block.ops):
            o.detach()
            block.add_op(o)
        for o in list(br.walk()):
            if isinstance(o, WgBarrierOp):
                o.parent_block().insert_op_before(BarrierOp(1 + idx, 32 * p.warps), o)
                o.detach()
                o.erase()
        disp.body.block.add_op(br)
        first += p.warps
    region.parent_block().insert_op_before(disp, region)
    region.detach()
    region.erase()
    try:
        disp.verify()
    except VerifyException as e:
        raise error_at(disp, f"ws-lower-warp-groups: {e}") from None
    return disp


@dataclass(frozen=True)
class LowerWarpGroupsPass(ModulePass):
    """warp_group.region/partition/barrier -> nvgpu.wg.dispatch/branch + setmaxnreg, nvvm.barrier."""

    name = "ws-lower-warp-groups"

    def apply(self, ctx, op: ModuleOp) -> None:
        for region in [o for o in op.walk() if isinstance(o, RegionOp)]:
            lower_region(region)
