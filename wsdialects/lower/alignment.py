"""What the IR proves about the alignment of integers and pointers: the largest power of two
known to divide a value (for a pointer, its address in bytes), from kernel arguments'
`tt.divisibility` (Triton marks 16-byte aligned pointers and multiples of 16), constants and
`+ - *` / shifts / `tile.addptr` between them; what it cannot see through divides by 1.

A vector memory access needs such a proof: `tile.atomic_add` adds two f32 of the
accumulator fragment with one `red.global.add.v2.f32` only where their address is 8-byte
aligned (wsdialects/lower/llvm/memory.py). Along a tile's column dimension `col` the proof is
for the elements of column 0 (`divisor(v, col)`): where the tile is contiguous along `col` (one
element per column step, which the emitter checks), the element of column c lies c elements
further, so an even column is as aligned as column 0, to twice the element size.

    %c = tile.splat %c_ptr : !tile.ptr<f32> -> ...        // %c_ptr {tt.divisibility = 16}: 16 bytes
    %o = arith.muli %rows, %stride                         // %stride {tt.divisibility = 16}: 16
    %p = tile.addptr %c, (%o + %on + range(0, 64) along col)   // column 0: 16 if %on = pid * 64
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue

from wsdialects.lower.llvm.types import nbytes, splat_int

CAP = 1 << 16  # what 0 is divisible by, as far as any access cares


def _pow2(n: int) -> int:
    """The largest power of two dividing `n` (CAP for 0)."""
    n = abs(int(n))
    return CAP if n == 0 else min(CAP, n & -n)


def _argument(v: BlockArgument) -> int:
    f = v.owner.parent_op() if v.owner is not None else None
    if f is None or f.name != "func.func":
        return 1
    attrs = f.arg_attrs.data[v.index].data if f.arg_attrs is not None and v.index < len(f.arg_attrs.data) else {}
    div = attrs.get("tt.divisibility")
    if isinstance(div, IntegerAttr):
        return _pow2(div.value.data)
    pointee = getattr(v.type, "pointee", None)
    return nbytes(pointee) if pointee is not None else 1  # a pointer to T is aligned to T


def divisor(v: SSAValue, col: int | None = None) -> int:
    """The largest power of two known to divide `v` (a pointer: its address in bytes), for a
    tile every element, or with `col`, every element of column index 0 along dim `col`."""
    if isinstance(v, BlockArgument):
        return _argument(v) if not isinstance(v.type, TensorType) else 1
    o = v.owner
    if not isinstance(o, Operation):
        return 1
    n = o.name
    if n == "arith.constant":
        x = splat_int(v)  # an integer, or one repeated in a tile
        return _pow2(x) if x is not None else 1
    if n == "tile.splat":
        return divisor(o.operands[0])
    if n == "tile.make_range":
        start, end = o.start.value.data, o.end.value.data
        return _pow2(start) if col == 0 or end - start == 1 else 1
    if n == "tile.expand_dims":
        ax = o.axis.value.data
        inner = None if col is None or col == ax else col - (col > ax)
        return divisor(o.operands[0], inner)
    if n == "tile.broadcast":
        return divisor(o.operands[0], col)
    if n in ("arith.addi", "arith.subi"):
        return min(divisor(o.operands[0], col), divisor(o.operands[1], col))
    if n == "arith.muli":
        return min(CAP, divisor(o.operands[0], col) * divisor(o.operands[1], col))
    if n == "arith.shli":
        shift = splat_int(o.operands[1])
        return min(CAP, divisor(o.operands[0], col) << max(0, min(shift, 16))) if shift is not None else \
            divisor(o.operands[0], col)
    if n in ("arith.extsi", "arith.extui", "arith.index_cast"):
        return divisor(o.operands[0], col)
    if n == "tile.addptr":
        pointee = _pointee(o.operands[0].type)
        return min(divisor(o.operands[0], col), min(CAP, divisor(o.operands[1], col) * nbytes(pointee)))
    return 1


def _pointee(t):
    e = t.element_type if isinstance(t, TensorType) else t
    return e.pointee

