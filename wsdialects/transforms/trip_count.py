"""The trip count of an `scf.for` as IR: how many times the loop runs its body.

Several passes need it at run time: ws-distribute advances a ring's position base past
a tile loop by it, ws-pipeline-mma drains the last slots of a loop from `trips - P` to
`trips`, ws-pipeline-coarse counts the iterations it peels, ws-persistent the ring
positions one tile uses. The count is `max(ceildiv(ub - lb, step), 0)` (no iteration
when ub <= lb), in the type of the loop's bounds:

    %span = arith.subi %ub, %lb : i32
    %n = arith.ceildivsi %span, %step : i32
    %c0 = arith.constant 0 : i32
    %trips = arith.maxsi %n, %c0 : i32
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue


def trip_count(loop: scf.ForOp, lb: SSAValue | None = None) -> tuple[list[Operation], SSAValue]:
    """Ops computing max(ceildiv(ub - lb, step), 0), and that value; `lb`, where given, stands
    for the loop's lower bound (ws-persistent counts from before the iterations ws-pipeline-coarse
    peeled off in front of the loop)."""
    t = loop.lb.type
    span = arith.SubiOp(loop.ub, loop.lb if lb is None else lb)
    n = arith.CeilDivSIOp(span.result, loop.step)
    zero = arith.ConstantOp(IntegerAttr(0, t))
    n0 = arith.MaxSIOp(n.result, zero.result)
    n0.result.name_hint = "trips"
    return [span, n, zero, n0], n0.result
