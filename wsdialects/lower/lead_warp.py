"""`ws-lead-warp`: a producer branch whose work is one elected thread's TMA copies runs it
in one warp (FlashAttention-3's and CUTLASS's producer warp).

After ws-lower-aref a TMA producer's body is scalar index arithmetic, loops, slot waits
(`nvgpu.mbarrier.try_wait.parity`), and single-thread `arrive_expect_tx` / `tma.async_load`:
nothing in it needs the other three warps of its warp group, yet all four would run the loop
and spin on the slot barriers, taking issue slots from the consumer warps that share their
schedulers. This pass moves such a body (everything after `nvgpu.setmaxnreg`, which every
warp of the group must execute) into `nvgpu.wg.lead_warp`:

    nvgpu.wg.branch warps 0 to 4 "producer" {         nvgpu.wg.branch warps 0 to 4 "producer" {
      nvgpu.setmaxnreg dec 40                            nvgpu.setmaxnreg dec 40
      scf.for ... {                           ==>        nvgpu.wg.lead_warp {
        nvgpu.mbarrier.try_wait.parity ...                 scf.for ... { ... }
        nvgpu.mbarrier.arrive_expect_tx ...              }
        nvgpu.tma.async_load ...                       }
      }
    }

A branch qualifies when it issues at least one TMA copy and every op in it is one of: scalar
`arith` / `math`, `scf.for` / `if` / `yield` on scalars, `tile.program_id` /
`num_programs`, slot waits, `arrive_expect_tx`, a `once` arrival, a TMA copy. Anything that
counts or needs the group's warps (per-warp arrivals, shared-memory stores, named barriers,
tiles in registers) leaves the branch as it is. Runs in `ws-hopper` after
ws-lower-warp-groups; on its own it is a no-op with a remark where nothing qualifies.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from wsdialects.diagnostics import remark, warning
from wsdialects.nvgpu import BranchOp, LeadWarpOp, MBarrierArriveOp, SetMaxNRegOp, TmaAsyncLoadOp
from wsdialects.transforms.partition import kernels

# Ops that one warp runs exactly as the whole group would (scalars, or one elected thread's).
SINGLE_THREAD = {"nvgpu.mbarrier.try_wait.parity", "nvgpu.mbarrier.arrive_expect_tx", "nvgpu.tma.async_load",
                 "tile.program_id", "tile.num_programs", "scf.for", "scf.if", "scf.yield"}


def _one_warp_op(o: Operation) -> bool:
    if any(isinstance(v.type, TensorType) for v in (*o.operands, *o.results)):
        return False
    if isinstance(o, MBarrierArriveOp):
        return o.scope.data == "once"
    return o.name in SINGLE_THREAD or o.name.split(".")[0] in ("arith", "math")


def qualifies(br: BranchOp) -> bool:
    """Does the branch's work need only its first warp?"""
    ops = [o for o in br.body.walk() if o is not br]
    return (br.num_warps > 1 and any(isinstance(o, TmaAsyncLoadOp) for o in ops)
            and not any(isinstance(o, LeadWarpOp) for o in ops)
            and all(isinstance(o, SetMaxNRegOp) or _one_warp_op(o) for o in ops))


def lead_warp(br: BranchOp) -> LeadWarpOp:
    """Move the branch's ops after its setmaxnreg into an `nvgpu.wg.lead_warp`."""
    lw = LeadWarpOp()
    for o in [o for o in br.body.block.ops if not isinstance(o, SetMaxNRegOp)]:
        o.detach()
        lw.body.block.add_op(o)
    br.body.block.add_op(lw)
    return lw


@dataclass(frozen=True)
class LeadWarpPass(ModulePass):
    """Run a TMA producer branch in its first warp only (the others idle)."""

    name = "ws-lead-warp"
    remarks: bool = True  # say so where no branch qualifies (ws-hopper: False)

    def apply(self, ctx, op: ModuleOp) -> None:
        ks = kernels(op)
        if not ks and self.remarks:
            warning(op, "ws-lead-warp: no tile.kernel function; nothing to do")
            return
        done = [lead_warp(br) for br in [o for o in op.walk() if isinstance(o, BranchOp)] if qualifies(br)]
        if not done and self.remarks:
            for k in ks[:1]:
                remark(k, "ws-lead-warp: no nvgpu.wg.branch whose work is one thread's TMA copies and barrier "
                          "waits (run ws-lower-aref and ws-lower-warp-groups first); nothing changed")
