"""`ws-lower-mma`: tensor-core ops of a warp-group branch -> wgmma (Tawa §III-D1, §III-E).

Inside every `nvgpu.wg.branch`, each dot becomes Hopper's warp-group MMA protocol
(fence, mma_async, commit_group of that one dot, wait_group), and each `mma.wait`
becomes a `wait_group` with the same pending count (one group per dot, so "P dots
in flight" is "P groups in flight"); a `tile.dot` waits for its own group at once:

    %d = tile.dot %a, %bt, %acc : ...      ==>  nvgpu.wgmma.fence
                                                %d = nvgpu.wgmma.mma_async %a, %bt, %acc : ...
                                                nvgpu.wgmma.commit_group
                                                %d_1 = nvgpu.wgmma.wait_group %d {pending = 0} : ...
    %e = mma.async_dot %a, %bt, %acc : ... ==>  (the same without the wait_group)
    %r = mma.wait %e {pending = 1} : ...   ==>  %r = nvgpu.wgmma.wait_group %e {pending = 1} : ...

What wgmma needs is checked here, each failure a located error:
- A is either a K-contiguous MxK shared-memory tile (an `nvgpu.smem.view` of a slot,
  or a `warp_group.share` of one along its rows), or, for f16 / bf16, `tile.trans [1, 0]`
  of a KxM shared-memory tile (M-contiguous: a weight gradient's Xᵀ, wgmma's transpose-A
  bit), or a tile in registers (FlashAttention-3's P·V: the converted accumulator of an
  earlier dot; `ws-lower-layouts` then places it in the accumulator fragment, which is
  wgmma's register-A fragment for f16 / bf16, and converts an fp8 one into the 8-bit
  A fragment, `#layout.operand_a`);
- B is `tile.trans [1, 0]` of an NxK shared-memory tile (K-major B) or, for f16 / bf16,
  a KxN shared-memory tile itself (N-contiguous: the MN-major B of V in P·V, wgmma's
  transpose-B bit; an fp8 V is transposed in shared memory first, `ws-stage-operands`);
- the elements are f16, bf16, f8E4M3FN or f8E5M2 with f32 accumulation; K is a
  multiple of the wgmma K step (16, fp8: 32); N is a multiple of 8 and at most 256;
  M is a multiple of 64 x the branch's warp groups (each warp group issues m64
  wgmmas for its rows); a wait leaves at most 7 groups pending. Dots outside a
branch (a kernel that is not warp specialized) are left as they are.

    %acc2 = mma.async_dot %p16, %v, %acc : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      (%p16 computed in registers, %v an nvgpu.smem.view: register A, MN-major B)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.diagnostics import error_at
from wsdialects.mma import AsyncDotOp, WaitOp
from wsdialects.nvgpu import (
    BranchOp,
    SmemViewOp,
    WgmmaCommitGroupOp,
    WgmmaFenceOp,
    WgmmaMmaAsyncOp,
    WgmmaWaitGroupOp,
)
from wsdialects.tile import TransOp
from wsdialects.tile import DotOp as TileDotOp
from wsdialects.warp_group import ShareOp

try:  # fp8 types (xDSL 0.74 names)
    from xdsl.dialects.builtin import Float8E4M3FNType, Float8E5M2Type
except ImportError:  # pragma: no cover
    Float8E4M3FNType = Float8E5M2Type = ()

WGMMA_M = 64  # rows of one wgmma per warp group
WGMMA_N_MAX = 256
MAX_PENDING = 7  # wgmma.wait_group N, N in [0, 7]


def k_step(et) -> int | None:
    """The K of one wgmma instruction for element type `et` (None: no wgmma for it)."""
    if isinstance(et, (Float16Type, BFloat16Type)):
        return 16
    if isinstance(et, (Float8E4M3FNType, Float8E5M2Type)):
        return 32
    return None


def _describe(v: SSAValue) -> str:
    o = v.owner
    what = f"%{v.name_hint}" if v.name_hint else "the value"
    if isinstance(o, Operation):
        return f"{what} ({o.name})"
    return f"{what} (a block argument)"


def smem_tile(v: SSAValue) -> SmemViewOp | None:
    """The slot view `v` reads, if `v` is a shared-memory tile: the view itself or a
    `warp_group.share` of one along its rows (whole rows, rows still contiguous)."""
    o = v.owner
    while isinstance(o, ShareOp) and o.axis.value.data == 0:
        o = o.src.owner
    return o if isinstance(o, SmemViewOp) else None


def m_major_a(a: SSAValue) -> bool:
    """`a` is `tile.trans [1, 0]` of a KxM shared-memory tile (the view, or a
    `warp_group.share` of one along its columns: a cooperative group's rows of M): an
    M-contiguous (MN-major) A, which wgmma reads for f16 / bf16 with its transpose-A bit."""
    o = a.owner
    if not (isinstance(o, TransOp) and list(o.order.get_values()) == [1, 0]):
        return False
    src = o.src.owner
    while isinstance(src, ShareOp) and src.axis.value.data == 1:
        src = src.src.owner
    return isinstance(src, SmemViewOp)


def check_dot(op: Operation, warp_groups: int) -> None:
    """Raise a located error unless `op` (tile.dot / mma.async_dot) maps to wgmma."""
    a, b, acc = op.operands
    pre = f"ws-lower-mma: {op.name}"
    et, bet = a.type.element_type, b.type.element_type
    kstep = k_step(et)
    if kstep is None or bet != et:
        raise error_at(op, f"{pre} on {et} x {bet}: wgmma multiplies f16, bf16, f8E4M3FN or f8E5M2 "
                           "(both operands of one type)")
    if not isinstance(acc.type, TensorType) or not isinstance(acc.type.element_type, Float32Type):
        raise error_at(op, f"{pre}: wgmma accumulates in f32, not {acc.type}")
    sixteen = isinstance(et, (Float16Type, BFloat16Type))
    if smem_tile(a) is None and not (m_major_a(a) and sixteen):
        o = a.owner
        if m_major_a(a):
            why = f"{_describe(a)}, a transposed shared-memory tile (M-contiguous), which wgmma reads for f16/bf16 only"
        elif isinstance(o, ShareOp):
            why = f"{_describe(a)} along {o.axis.value.data} (a slice across K)"
        else:
            why = None  # register A: ws-lower-layouts places it in wgmma's register-A fragment
        if why is not None:
            raise error_at(op, f"{pre}: operand A must be a K-contiguous MxK shared-memory tile (an "
                               f"nvgpu.smem.view of an aref slot, or a warp_group.share of one along its rows), "
                               f"for f16/bf16 tile.trans [1, 0] of a KxM one (M-contiguous A), or a tile in "
                               f"registers; got {why}")
    bt = b.owner
    k_major = isinstance(bt, TransOp) and list(bt.order.get_values()) == [1, 0] and smem_tile(bt.src) is not None
    if not k_major and not (smem_tile(b) is not None and sixteen):
        if smem_tile(b) is not None:
            why = f"{_describe(b)}, a KxN shared-memory tile (N-contiguous), which wgmma reads for f16/bf16 only"
        elif isinstance(bt, TransOp):
            why = f"tile.trans of {_describe(bt.src)}, which lives in registers"
        else:
            why = f"{_describe(b)}, which lives in registers (wgmma reads B from shared memory)"
        raise error_at(op, f"{pre}: operand B must be tile.trans [1, 0] of an NxK shared-memory tile "
                           f"(K-major B) or, for f16/bf16, a KxN shared-memory tile (N-major B); got {why}")
    (M, K), (_, N) = a.type.get_shape(), b.type.get_shape()
    if K % kstep:
        raise error_at(op, f"{pre}: K = {K} is not a multiple of the wgmma K step {kstep} for {et}")
    if N % 8 or not 0 < N <= WGMMA_N_MAX:
        raise error_at(op, f"{pre}: N = {N} must be a multiple of 8 and at most {WGMMA_N_MAX} (wgmma m64nNk{kstep})")
    rows = WGMMA_M * warp_groups
    if M % rows:
        raise error_at(op, f"{pre}: M = {M} is not a multiple of {rows} (64 rows per warp group, "
                           f"{warp_groups} warp group(s) in this branch)")


def _located(new: Operation, old: Operation) -> Operation:
    new.location = old.location
    return new


def lower_dot(op: Operation, warp_groups: int) -> None:
    """tile.dot / mma.async_dot -> fence, mma_async, commit_group (+ wait_group 0 for tile.dot)."""
    check_dot(op, warp_groups)
    mma = _located(WgmmaMmaAsyncOp(*op.operands), op)
    mma.result.name_hint = op.results[0].name_hint
    new = [_located(WgmmaFenceOp(), op), mma, _located(WgmmaCommitGroupOp(), op)]
    result = mma.result
    if isinstance(op, TileDotOp):
        wait = _located(WgmmaWaitGroupOp([mma.result], 0), op)
        wait.outputs[0].name_hint = op.results[0].name_hint
        new.append(wait)
        result = wait.outputs[0]
    op.parent_block().insert_ops_before(new, op)
    op.results[0].replace_all_uses_with(result)
    op.detach()
    op.erase()


def lower_wait(op: WaitOp) -> None:
    """mma.wait {pending = P} -> nvgpu.wgmma.wait_group {pending = P} over the same values."""
    p = op.num_pending
    if p > MAX_PENDING:
        raise error_at(op, f"ws-lower-mma: mma.wait leaves {p} dots in flight; wgmma.wait_group can leave at "
                           f"most {MAX_PENDING} groups pending")
    wait = _located(WgmmaWaitGroupOp(list(op.inputs), p), op)
    for r, n in zip(op.outputs, wait.outputs, strict=True):
        n.name_hint = r.name_hint
    op.parent_block().insert_op_before(wait, op)
    for r, n in zip(op.outputs, wait.outputs, strict=True):
        r.replace_all_uses_with(n)
    op.detach()
    op.erase()


def lower_branch(br: BranchOp) -> None:
    wgs = br.num_warps // 4
    for o in list(br.body.walk()):
        if isinstance(o, (TileDotOp, AsyncDotOp)):
            lower_dot(o, wgs)
        elif isinstance(o, WaitOp):
            lower_wait(o)


def needs_lowering(module: Operation) -> bool:
    """Whether `module` holds a tile.dot or mma op inside a warp-group branch."""
    return any(isinstance(o, (TileDotOp, AsyncDotOp, WaitOp))
               for br in module.walk() if isinstance(br, BranchOp) for o in br.body.walk())


@dataclass(frozen=True)
class LowerMmaPass(ModulePass):
    """tile.dot / mma.async_dot / mma.wait in nvgpu.wg.branch -> nvgpu.wgmma fence/mma_async/commit/wait."""

    name = "ws-lower-mma"

    def apply(self, ctx, op: ModuleOp) -> None:
        for br in [o for o in op.walk() if isinstance(o, BranchOp)]:
            lower_branch(br)
