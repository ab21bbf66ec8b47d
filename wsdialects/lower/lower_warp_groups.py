"""`ws-lower-warp-groups`: warp_group regions -> warp-group dispatch with setmaxnreg.

A `warp_group.region` whose partitions have W_0, W_1, ... warps becomes one
`nvgpu.wg.dispatch` over 32·ΣW_i threads with a branch per partition covering
warps [ΣW_<i, ΣW_≤i) (whole warp groups, in partition order). A partition with a
register budget R starts with `nvgpu.setmaxnreg dec R` when R is below the
per-thread registers at launch (65536 / threads, rounded down to 8; a C-th of that when the
kernel's `ws.ctas_per_sm` is C, written on the dispatch as `ctas_per_sm C`) and `inc R`
when above; the budgets must sum to at most what the CTA holds from launch (the per-thread
count times the threads: setmaxnreg moves registers between warp groups, and a `.inc` that
the others' `.dec`s do not cover blocks forever). `warp_group.barrier` in partition i
becomes the named barrier `nvvm.barrier (i + 1) threads 32·W_i` (barrier 0 is the CTA's). The turns of a
cooperative team (`ws-pingpong`) take one named barrier per group after those: group
g's `turn_wait` is `nvvm.barrier` on its own barrier, `turn_pass` an
`nvvm.barrier_arrive` on group g + 1's, each counting the threads of both groups.

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

from wsdialects.attributes import ctas_per_sm
from wsdialects.diagnostics import error_at, numbered
from wsdialects.nvgpu import REGFILE, BranchOp, DispatchOp, SetMaxNRegOp
from wsdialects.nvvm import MAX_NAMED_BARRIER, BarrierArriveOp, BarrierOp
from wsdialects.warp_group import BarrierOp as WgBarrierOp
from wsdialects.warp_group import PartitionOp, RegionOp, TurnPassOp, TurnWaitOp


def _turn_barriers(region: RegionOp) -> dict:
    """turn op -> its named barrier op, for the cooperative team that takes turns."""
    parts = region.partitions
    groups: dict[int, PartitionOp] = {}
    size = 0
    turns = [(p, o) for p in parts for o in p.body.walk() if isinstance(o, TurnWaitOp | TurnPassOp)]
    for p, o in turns:
        if size and o.n != size:
            raise error_at(o, f"ws-lower-warp-groups: turns among {o.n} groups beside turns among {size}")
        size = o.n
        if groups.setdefault(o.g, p) is not p:
            raise error_at(o, f"ws-lower-warp-groups: partitions {groups[o.g].pid} and {p.pid} both take the "
                              f"turns of group {o.g} of {o.n}")
        if any(q is p and g != o.g for g, q in groups.items()):
            raise error_at(o, f"ws-lower-warp-groups: partition {p.pid} takes the turns of two groups")
    if not turns:
        return {}
    if sorted(groups) != list(range(size)):
        missing = sorted(set(range(size)) - set(groups))
        raise error_at(turns[0][1], f"ws-lower-warp-groups: no partition takes the turns of {numbered('group', missing)} "
                                    f"of {size}: the turn would never come back")
    base = 1 + len(parts)  # after the partitions' own barriers
    if base + size - 1 > MAX_NAMED_BARRIER:
        raise error_at(turns[0][1], f"ws-lower-warp-groups: {size} turn barriers after {len(parts)} partition "
                                    f"barriers exceed the {MAX_NAMED_BARRIER} named barriers")
    threads = {g: 32 * p.warps for g, p in groups.items()}
    out = {}
    for _, o in turns:
        if isinstance(o, TurnWaitOp):  # wait on my barrier: me and the group before me
            prev = (o.g - 1) % size
            out[o] = BarrierOp(base + o.g, threads[o.g] + threads[prev])
        else:  # arrive on the next group's barrier
            nxt = (o.g + 1) % size
            out[o] = BarrierArriveOp(base + nxt, threads[nxt] + threads[o.g])
    return out


def lower_region(region: RegionOp) -> DispatchOp:
    parts = region.partitions
    warps = sum(p.warps for p in parts)
    threads = warps * 32
    if threads > 1024:
        raise error_at(region, f"ws-lower-warp-groups: {threads} threads per CTA exceed 1024")
    disp = DispatchOp(threads, ctas_per_sm=ctas_per_sm(region))
    entry = disp.entry_regs()
    budget = sum((p.regs.value.data if p.regs is not None else entry) * 32 * p.warps for p in parts)
    if budget > disp.register_pool:
        share = f", {disp.num_ctas_per_sm} CTAs per SM sharing the {REGFILE}" if disp.num_ctas_per_sm > 1 else ""
        raise error_at(region, f"ws-lower-warp-groups: register budgets need {budget} registers, the CTA holds "
                               f"{disp.register_pool} ({entry} a thread from launch{share}; a setmaxnreg.inc "
                               "beyond them would wait forever)")
    turn_bars = _turn_barriers(region)
    first = 0
    made = []  # the setmaxnreg ops and named barriers made here (verified below)
    for idx, p in enumerate(parts):
        if first % 4 or p.warps % 4:
            raise error_at(p, f"ws-lower-warp-groups: partition {p.pid} ({p.warps} warps from warp {first}) is "
                              "not made of whole warp groups")
        br = BranchOp(first, p.warps, p.role_name)
        block = br.body.block
        regs = p.regs.value.data if p.regs is not None else None
        if regs is not None and regs != entry:
            made.append(SetMaxNRegOp("dec" if regs < entry else "inc", regs))
            block.add_op(made[-1])
        for o in list(p.body.block.ops):
            o.detach()
            block.add_op(o)
        for o in list(br.walk()):
            new = BarrierOp(1 + idx, 32 * p.warps) if isinstance(o, WgBarrierOp) else turn_bars.get(o)
            if new is not None:
                made.append(new)
                o.parent_block().insert_op_before(new, o)
                o.detach()
                o.erase()
        disp.body.block.add_op(br)
        first += p.warps
    region.parent_block().insert_op_before(disp, region)
    region.detach()
    region.erase()
    try:
        _verify_lowered(disp, made)
    except VerifyException as e:
        raise error_at(disp, f"ws-lower-warp-groups: {e}") from None
    return disp


def _verify_lowered(disp: DispatchOp, made: list) -> None:
    """Verify what lowering a region made: the dispatch, its branches, their setmaxnreg ops and
    the named barriers. The ops moved into the branches are the partitions' own, unchanged (the
    verifiers that look for an enclosing partition, `warp_group.barrier`'s and the turns', belong
    to ops replaced here); the whole module is verified after the pass (ws-opt) or at the end of
    ws-hopper, and test_lowering verifies whole dispatches. In `disp.verify()`'s order: nested
    ops first."""
    for o in made:
        o.verify(verify_nested_ops=False)
    for br in disp.body.block.ops:
        br.verify(verify_nested_ops=False)
    disp.verify(verify_nested_ops=False)


@dataclass(frozen=True)
class LowerWarpGroupsPass(ModulePass):
    """warp_group.region/partition/barrier/turns -> nvgpu.wg.dispatch/branch + setmaxnreg, named barriers."""

    name = "ws-lower-warp-groups"

    def apply(self, ctx, op: ModuleOp) -> None:
        for region in [o for o in op.walk() if isinstance(o, RegionOp)]:
            lower_region(region)
