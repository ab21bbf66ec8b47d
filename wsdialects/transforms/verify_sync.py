"""`ws-verify-sync`: the static synchronization check of warp-specialized kernels,
on aref IR (after `ws-specialize`) and on mbarrier / named-barrier IR
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
violation means a pass is wrong: an internal compiler error (exit 2) -- except in a
kernel that is warp-specialized on input (hand-written aref IR), which they check
before their passes (`verify_input_sync`, exit 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from wsdialects.diagnostics import WsError, error_at


class InternalSyncError(WsError):
    """A pass produced wrong synchronization: a compiler defect (ws-opt exits 2)."""

    exit_code = 2


def located(op: Operation) -> Operation:
    """`op` if it has a source location of its own, else the closest op that has one (ops the
    passes create, like ws-distribute's aref ops, have none): searched breadth-first through
    the producers of the tiles it takes, the users of its results, the producers of its other
    operands and its neighbours in its block (a ring's put is reported at the load it carries)."""
    def own(o) -> bool:
        return isinstance(o, Operation) and isinstance(o.location, FileLineColLoc)

    seen, level = {op}, [op]
    while level and len(seen) < 400:
        found = next((o for o in level if own(o)), None)
        if found is not None:
            return found
        nxt = []
        for o in level:
            tiles = [v.owner for v in o.operands if isinstance(v.type, TensorType)]  # what a put carries
            near = tiles + [u.operation for r in o.results for u in r.uses] + [v.owner for v in o.operands]
            near += [o.prev_op, o.next_op]
            for n in near:
                if isinstance(n, Operation) and n not in seen and n.name not in ("func.func", "builtin.module"):
                    seen.add(n)
                    nxt.append(n)
        level = nxt
    return op


def verify_sync(module: ModuleOp, internal: bool = True) -> None:
    """Raise a located error for the first synchronization defect in `module`."""
    from wsdialects.sync import Fault, Violation
    from wsdialects.sync.check import check_sync

    try:
        check_sync(module)
    except Violation as v:
        e = error_at(located(v.op), "")
        if internal and not isinstance(v, Fault):
            raise InternalSyncError(f"internal compiler error: ws-verify-sync: {v.message} (a warp-specialization "
                                    "pass produced this; please report it)", e.file, e.line, e.col) from None
        raise WsError(f"ws-verify-sync: {v.message}", e.file, e.line, e.col) from None


def verify_input_sync(module: ModuleOp) -> None:
    """Check the kernels that are warp-specialized on input (written by hand, or by an earlier
    run): a violation there is the input's, a located user error, not a pass defect."""
    from wsdialects.sync.skeleton import CONTAINERS

    if any(o.name in CONTAINERS for o in module.walk()):
        verify_sync(module, internal=False)


@dataclass(frozen=True)
class VerifySyncPass(ModulePass):
    """Check the synchronization of every warp-specialized kernel: its aref rings, cooperative
    gathers and turns, mbarriers and named barriers (a deadlock, a race on a slot, an
    unbalanced release, arrival or turn is an error at the op)."""

    name = "ws-verify-sync"

    def apply(self, ctx, op: ModuleOp) -> None:
        verify_sync(op, internal=False)
