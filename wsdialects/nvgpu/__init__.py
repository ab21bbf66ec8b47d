"""The `nvgpu` dialect: Hopper's asynchronous machinery at warp-group level
(mbarriers, TMA, wgmma, proxy fences, setmaxnreg, warp-group dispatch).

`ws-lower-aref` and `ws-lower-warp-groups` produce it; the LLVM IR emitter
(`wsdialects/lower/llvm/`) turns each op into inline PTX. The ops are
collective over the warps that execute them (a partition / dispatch branch):
who actually issues an instruction (one elected thread, lane 0 of each warp,
every thread) is part of each op's meaning and is written in its docstring.
Slot indices and parities are i32.

    %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
    nvgpu.mbarrier.init %full[%c0] count 1 : !nvgpu.mbarriers<3>
    nvgpu.mbarrier.try_wait.parity %empty[%s], %p : !nvgpu.mbarriers<3>
    nvgpu.mbarrier.arrive_expect_tx %full[%s] bytes 49152 : !nvgpu.mbarriers<3>
    nvgpu.tma.async_load %desc[%m, %k] -> %buf[%s], %full[%s] : !tile.desc<tensor<128x64xf16>>, memref<3x128x64xf16, 3>, !nvgpu.mbarriers<3>
"""

from __future__ import annotations

from xdsl.ir import Dialect

from wsdialects.nvgpu.barriers import (
    ARRIVE_SCOPES,
    FenceMBarrierInitOp,
    FenceProxyAsyncOp,
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierCreateOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
)
from wsdialects.nvgpu.dispatch import BranchOp, DispatchOp, LeadWarpOp, SetMaxNRegOp
from wsdialects.nvgpu.memory import (
    SmemAllocOp,
    SmemLoadOp,
    SmemStoreOp,
    SmemViewOp,
    TmaAsyncLoadOp,
    TmaAsyncStoreOp,
    TmaStoreWaitOp,
    STAGING_ATTR,
    staging_alloc,
)
from wsdialects.nvgpu.types import REG_MAX, REG_MIN, REGFILE, SMEM_SPACE, MBarriersType
from wsdialects.nvgpu.wgmma import ConvertLayoutOp, WgmmaCommitGroupOp, WgmmaFenceOp, WgmmaMmaAsyncOp, WgmmaWaitGroupOp

NVGPU_OPS = [
    MBarrierCreateOp, MBarrierInitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp, MBarrierTryWaitParityOp,
    FenceMBarrierInitOp, FenceProxyAsyncOp, SmemAllocOp, SmemViewOp, SmemStoreOp, SmemLoadOp, TmaAsyncLoadOp,
    TmaAsyncStoreOp, TmaStoreWaitOp, WgmmaFenceOp, WgmmaMmaAsyncOp, WgmmaCommitGroupOp, WgmmaWaitGroupOp, ConvertLayoutOp,
    SetMaxNRegOp, BranchOp, LeadWarpOp, DispatchOp,
]
Nvgpu = Dialect("nvgpu", NVGPU_OPS, [MBarriersType])

__all__ = [
    "Nvgpu", "NVGPU_OPS", "MBarriersType", "SMEM_SPACE", "REGFILE", "REG_MIN", "REG_MAX", "ARRIVE_SCOPES",
    "STAGING_ATTR", "staging_alloc",
    *(op.__name__ for op in NVGPU_OPS),
]
