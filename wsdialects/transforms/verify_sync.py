"""`ws-verify-sync`: the static synchronization check of warp-specialized kernels
(issue 12), on aref IR (after `ws-specialize`) and on mbarrier / named-barrier IR
(after the lowering). `ws-specialize` and `ws-hopper` run it after their passes.

It checks, per `warp_group.region` / `nvgpu.wg.dispatch` (see `wsdialects.sync`):
one producing partition per ring; `consumers` = the partitions that get and release
it; puts / gets / releases of every position balanced along the paths the kernel
takes (its control flow run for sampled scalar inputs); gathers, turns
(`ws-pingpong`) and named barriers reached by every member of their team; mbarrier
arrival counts equal to the arrivals a phase gets; and no deadlock when the
partitions run against each other. A violation is reported at the op:

    gemm.mlir:21:9: error: ws-verify-sync: partition 1 (consumer) gets position 0 of ring
        %aref_a_b here and never releases it (no aref.consumed of that position)

Run alone it checks its input (exit 1); inside `ws-specialize` / `ws-hopper` a
violation means a pass is wrong: an internal compiler error (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from wsdialects.diagnostics import WsError, error_at


class InternalSyncError(WsError):
    """A pass produced wrong synchronization: a compiler defect (ws-opt exits 2)."""

    exit_code = 2


def verify_sync(module: ModuleOp, internal: bool = True) -> None:
    """Raise a located error for the first synchronization defect in `module`."""
    from wsdialects.sync import Violation
    from wsdialects.sync.check import check_sync

    try:
        check_sync(module)
    except Violation as v:
        e = error_at(v.op, "")
        if internal:
            raise InternalSyncError(f"internal compiler error: ws-verify-sync: {v.message} (a warp-specialization "
                                    "pass produced this; please report it)", e.file, e.line, e.col) from None
        raise WsError(f"ws-verify-sync: {v.message}", e.file, e.line, e.col) from None


@dataclass(frozen=True)
class VerifySyncPass(ModulePass):
    """Check the synchronization of every warp-specialized kernel (module docstring)."""

    name = "ws-verify-sync"

    def apply(self, ctx, op: ModuleOp) -> None:
        verify_sync(op, internal=False)
