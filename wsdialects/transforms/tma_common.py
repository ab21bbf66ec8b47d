"""What `ws-tma-store` and `ws-tma-load` share: matching helpers on the tile IR, the limits of a
TMA box, the launch-time test of a pointer argument's view, and the descriptor arguments
both passes add to a kernel.

Both passes turn pointer-tile accesses into TMA accesses of a descriptor the runtime (and the
interpreter) builds at launch from a pointer argument: the kernel gets a trailing
`!tile.desc<...>` argument, and `ws.tma_stores` / `ws.tma_loads` on the kernel record which
arguments the descriptor is built from.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from wsdialects.tile import SplatOp

TMA_BOX_MAX = 256  # elements per dimension of a TMA box


class NoMatch(Exception):
    """An access is not of the form a pass converts."""


def op_of(v: SSAValue, kind: type) -> Operation:
    """The op of type `kind` that defines `v`, else NoMatch."""
    if not isinstance(v.owner, kind):
        raise NoMatch
    return v.owner


def either(o: Operation, first, second):
    """(first(a), second(b)) for o's two operands in one order or the other."""
    a, b = o.operands
    for x, y in ((a, b), (b, a)):
        try:
            return first(x), second(y)
        except NoMatch:
            continue
    raise NoMatch


def kernel_arg(v: SSAValue, kernel: func.FuncOp) -> int:
    """The position of `v` among the kernel's arguments, else NoMatch."""
    if not isinstance(v, BlockArgument) or v.block is not kernel.body.block:
        raise NoMatch
    return v.index


def splat_of(v: SSAValue) -> SSAValue:
    return op_of(v, SplatOp).operands[0]


def box_problem(t: TensorType, what: str = "store") -> str | None:
    """Why TMA cannot move a box of tile type `t` (element type, box size, row bytes), or None."""
    from wsdialects.lower.llvm.types import nbytes

    shape = t.get_shape()
    try:
        es = nbytes(t.element_type)
    except TypeError:
        return f"TMA does not {what} {t.element_type}"
    if any(d > TMA_BOX_MAX for d in shape):
        return f"a {'x'.join(map(str, shape))} box is larger than TMA's {TMA_BOX_MAX} elements a dimension"
    if (shape[-1] * es) % 16:
        return f"a row of {shape[-1] * es} bytes is not a multiple of 16"
    return None


def view_problem(rows: int, cols: int, stride: int, itemsize: int, base: int, elements: int,
                 whole_rows: bool = True) -> str | None:
    """Why TMA cannot go through the rows x cols view (row stride `stride` elements) of an array
    of `elements` elements at address `base`, or None: the launch's test of the contract (the GPU
    runtime and the interpreter both ask this). TMA needs a 16-byte aligned base and row stride;
    a TMA store writes whole 16-byte chunks of a row, so with `whole_rows` the row's extent must
    end on 16 bytes as well (a load only reads, and drops what lies past the row)."""
    if rows < 1 or cols < 1 or stride < cols:
        return f"a {rows} x {cols} view with a row stride of {stride}"
    if (rows - 1) * stride + cols > elements:
        return f"the {rows} x {cols} view with a row stride of {stride} ends past the {elements} elements"
    checks = [("row stride", stride * itemsize), ("base address", base)]
    if whole_rows:
        checks.insert(1, ("row", cols * itemsize))
    for what, v in checks:
        if v % 16:
            return f"a {what} of {v} bytes is not a multiple of 16"
    return None


def add_kernel_arg(kernel: func.FuncOp, t: Attribute, name: str) -> BlockArgument:
    """A new last argument of `kernel` of type `t` (named `name` in the printed IR)."""
    entry = kernel.body.block
    arg = entry.insert_arg(t, len(entry.args))
    arg.name_hint = name
    kernel.function_type = func.FunctionType.from_lists([a.type for a in entry.args], [])
    return arg


# ---- ws-tma-load's launch contract, read by the GPU runtime and the interpreter alike

def load_contract(attr) -> list[dict]:
    """`ws.tma_loads` as plain data: per descriptor {ptr, desc, shape: [rows, cols], stride,
    extent}, each bound and the stride a list of monomials [coefficient, argument, ...]."""
    def poly(a) -> list[list[int]]:
        return [[x.value.data for x in m.data] for m in a.data]

    out = []
    for e in attr.data:
        d = e.data
        out.append({"ptr": d["ptr"].value.data, "desc": d["desc"].value.data,
                    "shape": [poly(p) for p in d["shape"].data], "stride": poly(d["stride"]),
                    "extent": "extent" in d and bool(d["extent"].value.data)})
    return out


def evaluate(poly: list[list[int]], args) -> int:
    """A polynomial of kernel arguments at a launch's arguments."""
    total = 0
    for coef, *idx in poly:
        term = coef
        for i in idx:
            term *= int(args[i])
        total += term
    return total


def load_view(entry: dict, args, elements: int) -> tuple[int, int, int]:
    """(rows, cols, row stride) of the view a ws-tma-load descriptor covers at a launch, in
    elements of the pointer argument (which holds `elements`). An unmasked row axis
    (`extent`) covers the rows the array holds."""
    cols, stride = evaluate(entry["shape"][1], args), evaluate(entry["stride"], args)
    if entry["extent"]:
        rows = (elements - cols) // stride + 1 if stride > 0 and elements >= cols else 0
    else:
        rows = evaluate(entry["shape"][0], args)
    return rows, cols, stride


def padded_cols(cols: int, itemsize: int) -> int:
    """The row stride (elements) of an aligned copy of a view: rows padded to 16 bytes."""
    return -(-cols * itemsize // 16) * 16 // itemsize
