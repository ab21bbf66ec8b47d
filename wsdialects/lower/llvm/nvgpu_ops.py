"""The nvgpu / nvvm ops of the LLVM emitter: mbarrier init / arrive / expect_tx / try_wait
(parity), fences, named barriers, setmaxnreg, slot views, and TMA loads into slots: one
`cp.async.bulk.tensor` per column block of the slot (a box as wide as the swizzle),
all completing on the slot's FULL barrier; wgmma ops go to wgmma.py, the dispatch to
frame.py."""

from __future__ import annotations


from xdsl.ir import Operation

from wsdialects.nvgpu import (
    ConvertLayoutOp,
    DispatchOp,
    LeadWarpOp,
    FenceMBarrierInitOp,
    FenceProxyAsyncOp,
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierCreateOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
    SetMaxNRegOp,
    SmemAllocOp,
    SmemStoreOp,
    SmemViewOp,
    TmaAsyncLoadOp,
    TmaStoreWaitOp,
    WgmmaCommitGroupOp,
    WgmmaFenceOp,
    WgmmaMmaAsyncOp,
    WgmmaWaitGroupOp,
)
from wsdialects.layout import column_blocks
from wsdialects.lower.llvm.types import nbytes
from wsdialects.nvvm import BarrierArriveOp, BarrierOp


class NvgpuOps:
    """mbarriers, fences, named barriers, setmaxnreg, TMA loads. A mixin of `Kernel` (kernel.py), over its emitter state."""

    def named_barrier(self, bid: int, threads: int | None, arrive: bool = False) -> None:
        """`bar.sync` / `bar.arrive` (the .aligned forms: a warp executes them converged).
        A warp that left an mbarrier spin loop thread by thread may still be diverged
        (compute-sanitizer synccheck: "divergent thread(s)"), so it reconverges first."""
        count = "" if threads is None else f", {threads}"
        self.asm(f"bar.warp.sync -1; bar.{'arrive' if arrive else 'sync'} {bid}{count};", "", [])

    def lower_nvgpu(self, o: Operation) -> None:
        n = o.name
        if isinstance(o, (SmemAllocOp, MBarrierCreateOp)):
            return  # planned up front
        if isinstance(o, MBarrierInitOp):
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; @p mbarrier.init.shared::cta.b64 [$1], $2; }",
                     "r,r,r", [("i32", self.tid), ("i32", self.bar_addr(o.barriers, o.index)),
                               ("i32", str(o.count.value.data))])
        elif isinstance(o, FenceMBarrierInitOp):
            self.asm("fence.mbarrier_init.release.cluster;", "", [])
        elif isinstance(o, FenceProxyAsyncOp):
            self.asm("fence.proxy.async.shared::cta;", "", [])
            nxt = o.next_op
            if (isinstance(o.prev_op, SmemStoreOp) and isinstance(nxt, MBarrierArriveOp)
                    and nxt.scope.data == "per_warp"):  # all lanes' stores, fenced, before lane 0 arrives for the warp
                self.asm("bar.warp.sync -1;", "", [])
        elif isinstance(o, BarrierOp):
            self.named_barrier(o.id.value.data, o.threads.value.data if o.threads is not None else None)
        elif isinstance(o, BarrierArriveOp):
            self.named_barrier(o.id.value.data, o.threads.value.data, arrive=True)
        elif isinstance(o, MBarrierTryWaitParityOp):
            self.wait(self.bar_addr(o.barriers, o.index), self.scalar(o.parity))
        elif isinstance(o, MBarrierArriveExpectTxOp):
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; "
                     f"@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], {o.bytes.value.data}; }}",
                     "r,r", [("i32", self.leader()), ("i32", self.bar_addr(o.barriers, o.index))])
        elif isinstance(o, MBarrierArriveOp):
            scope = o.scope.data
            if scope == "per_thread":  # each thread releases its own accesses
                self.asm("mbarrier.arrive.shared::cta.b64 _, [$0];", "r", [("i32", self.bar_addr(o.barriers, o.index))])
            else:
                # per_warp: lane 0 arrives for its warp, every lane's shared-memory writes (a
                # computed payload) come first
                who = self.layout.lane if scope == "per_warp" else self.leader()
                sync = "bar.warp.sync -1; " if scope == "per_warp" else ""
                self.asm(sync + "{ .reg .pred p; setp.eq.u32 p, $0, 0; @p mbarrier.arrive.shared::cta.b64 _, [$1]; }",
                         "r,r", [("i32", who), ("i32", self.bar_addr(o.barriers, o.index))])
        elif isinstance(o, TmaAsyncLoadOp):
            self.lower_tma_load(o)
        elif isinstance(o, SmemViewOp):
            self.vals[o.result] = self.slot_tile(o.buffer, o.index)
        elif isinstance(o, SetMaxNRegOp):
            self.asm(f"setmaxnreg.{o.action.data}.sync.aligned.u32 {o.regs.value.data};", "", [])
        elif isinstance(o, DispatchOp):
            self.lower_dispatch(o)
        elif isinstance(o, LeadWarpOp):
            self.lower_lead_warp(o)
        elif isinstance(o, WgmmaFenceOp):
            self.wgmma_fence(o)
        elif isinstance(o, WgmmaMmaAsyncOp):
            self.lower_wgmma(o)
        elif isinstance(o, WgmmaCommitGroupOp):
            self.asm("wgmma.commit_group.sync.aligned;", "", [])
        elif isinstance(o, WgmmaWaitGroupOp):
            self.lower_mma_wait(o)
        elif isinstance(o, SmemStoreOp):
            self.lower_smem_store(o)
        elif isinstance(o, TmaStoreWaitOp):
            self.wait_store_reads()
        elif isinstance(o, ConvertLayoutOp):
            return  # converted where it is first used (`ev_convert_layout`)
        else:
            self.fail(o, f"'{n}' cannot be lowered to Hopper code yet")

    def lower_tma_load(self, o: TmaAsyncLoadOp) -> None:
        """One TMA copy per column block of the slot (a box `swizzle` bytes wide: TMA's
        limit for swizzled boxes), all completing on the slot's FULL barrier."""
        _, dptr, dtt, pidx = self.vals[o.desc]
        S = self.slot_tile(o.buffer, o.index)
        eb = nbytes(S.elem)
        blocks = column_blocks(S.shape[1] * eb, S.swizzle)
        width = S.shape[1] // blocks
        self.use_desc(o, pidx, S.swizzle)
        self.use_box(o, pidx, (1,) * (len(o.coords) - 2) + (S.shape[0], width))
        bar = self.bar_addr(o.barriers, o.bar_index)
        coords = [self.scalar(x) for x in o.coords][::-1]  # innermost first
        cl = ", ".join(f"${4 + i}" for i in range(len(coords)))
        dp = self.op(f"ptrtoint ptr {dptr} to i64")
        for b in range(blocks):
            dst = self.op(f"add i32 {S.addr}, {b * S.block_bytes}") if b else S.addr
            inner = self.op(f"add i32 {coords[0]}, {b * width}") if b else coords[0]
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; "
                     f"@p cp.async.bulk.tensor.{len(coords)}d.shared::cluster.global.mbarrier::complete_tx::bytes "
                     f"[$1], [$2, {{{cl}}}], [$3]; }}",
                     ",".join(["r", "r", "l", "r"] + ["r"] * len(coords)),
                     [("i32", self.leader()), ("i32", dst), ("i64", dp),
                      ("i32", bar)] + [("i32", c) for c in [inner, *coords[1:]]])
