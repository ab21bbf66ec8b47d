"""Which warps the joint problem has: compute warps 0..n-1 for fixed-latency ops, W_vl for
variable-latency ops (TMA), and on Blackwell W_st, the issuer warp, for ops one thread issues
(``tcgen05.mma``)."""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Graph


@dataclass
class WarpLayout:
    compute: int  # warps 0..compute-1 take fixed-latency ops
    vl_warp: int | None  # W_vl: the warp that takes variable-latency ops
    issuer: int | None = None  # W_st: a warp that may take single-thread ops (tcgen05.mma) only

    @property
    def total(self) -> int:
        return self.compute + (self.vl_warp is not None) + (self.issuer is not None)


def warp_layout(graph: Graph) -> WarpLayout:
    compute = graph.warps.count if graph.warps else 1
    vl = compute if any(op.variable_latency for op in graph.ops) else None
    issuer = None
    if graph.warps is not None and graph.warps.issuer and any(op.single_thread for op in graph.ops):
        issuer = compute + (vl is not None)
    return WarpLayout(compute, vl, issuer)


def on_issuer(g: Graph, op) -> bool:
    """A single-thread op (tcgen05.mma) that holds no registers, pays no spill and runs
    asynchronously: on the issuer warp W_st it breaks no constraint that it meets on a
    compute warp, and interrupts nobody's issue there, so the joint model puts it there (a
    restriction that keeps the optimum).  Not when it carries a value to or from another
    fixed-latency op across iterations (``local_recurrences`` keeps those on one warp)."""
    if not (op.single_thread and not op.regs and not op.spill_cost and g.is_async(op.name)):
        return False
    return all(e.distance == 0 or e.src == e.dst or g.op(o).single_thread or g.op(o).variable_latency
               for e in g.preds(op.name) + g.succs(op.name) for o in [e.src if e.dst == op.name else e.dst])
