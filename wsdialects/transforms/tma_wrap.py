"""Whether the lanes of a loaded tile past a wrap bound are observed: what lets `ws-tma-load`
take Triton's tutorial matmul, which wraps its rows instead of masking them,

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M      # row x + i, wrapped at M
    a = tl.load(a_ptrs, mask=...)                                # rows past M repeat rows 0, 1, ...
    acc = tl.dot(a, b, acc)
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & ...)       # lanes of rows past M not written

A TMA load of the same box reads zeros in the rows at and past M instead of wrapped rows. The
two kernels store the same values when the lanes of those rows are seen nowhere but in
masked-off lanes of stores. The proof follows the loaded tile's axis: through elementwise
ops (arith, math: lane i of the result reads lane i of each operand), `tile.dot` (a's rows are
the result's rows, b's columns its columns, the accumulator's lanes its own; a wrap on the
reduction axis reaches every lane), `tile.trans`, `tile.expand_dims`, `tile.broadcast` of the
other axes, and `scf.for` iter_args and results; it ends at `tile.store`s of the value whose
mask has a conjunct `x + i < B` on that axis (the same x and B, as polynomials of the same
SSA values). Any other use, a store without such a conjunct, or a wrap whose x or B changes
in a loop around the load, is a reason the proof fails.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from wsdialects.reporting import location_of
from wsdialects.tile import BroadcastOp, DotOp, ExpandDimsOp, StoreOp, TransOp
from wsdialects.transforms.tma_affine import Analysis, Poly, add, key


def _elementwise(o: Operation, shape) -> bool:
    """An arith or math op whose tile results have the shape of its tile operands."""
    if o.dialect_name() not in ("arith", "math") or o.regions:
        return False
    return all(not isinstance(v.type, TensorType) or v.type.get_shape() == shape
               for v in (*o.operands, *o.results))


def unobserved(an: Analysis, value: SSAValue, axis: int, x: Poly, bound: Poly) -> str | None:
    """None when every lane of `value` with index i on `axis` and x + i >= bound reaches only
    lanes that stores leave unwritten; else why that is not proven."""
    loop = value.owner.parent_op() if isinstance(value.owner, Operation) else None
    while loop is not None:
        if isinstance(loop, scf.ForOp) and not (an.invariant(x, loop) and an.invariant(bound, loop)):
            return "the wrap's start or bound changes in the loop around the load"
        loop = loop.parent_op()
    rel = add(bound, x, -1)  # lanes i >= bound - x
    seen: set = set()
    work = [(value, axis)]
    while work:
        v, d = work.pop()
        if (v, d) in seen:
            continue
        seen.add((v, d))
        for use in list(v.uses):
            o, k = use.operation, use.index
            shape = v.type.get_shape()
            if isinstance(o, scf.YieldOp) and isinstance(p := o.parent_op(), scf.ForOp):
                work += [(p.results[k], d), (p.body.block.args[k + 1], d)]
            elif isinstance(o, scf.ForOp) and k >= 3:
                work += [(o.results[k - 3], d), (o.body.block.args[k - 2], d)]
            elif isinstance(o, DotOp):
                if (k, d) in ((0, 1), (1, 0)):
                    return "the wrapped axis is summed over by a tile.dot"
                work.append((o.result, d if k == 2 else k))
            elif isinstance(o, TransOp):
                work.append((o.result, list(o.order.get_values()).index(d)))
            elif isinstance(o, ExpandDimsOp):
                work.append((o.result, d + (d >= o.axis.value.data)))
            elif isinstance(o, BroadcastOp):
                if shape[d] != o.result.type.get_shape()[d]:
                    return "a tile.broadcast spreads the wrapped axis"
                work.append((o.result, d))
            elif isinstance(o, StoreOp):
                if k != 1:
                    return "the loaded values address or mask a store"
                if o.mask is None or not any(a == d and b is not None and not low and key(b) == key(rel)
                                             for a, b, _, low in an.conjuncts(o.mask, len(shape))):
                    return (f"a store of them (at {_where(o)}) has no mask that bounds the same index "
                            f"by the same value")
            elif _elementwise(o, shape):
                work += [(r, d) for r in o.results if isinstance(r.type, TensorType)]
            else:
                return f"they reach '{o.name}'"
    return None


def _where(o: Operation) -> str:
    loc = location_of(o)
    return f"{loc[0]}:{loc[1]}:{loc[2]}" if loc else o.name
