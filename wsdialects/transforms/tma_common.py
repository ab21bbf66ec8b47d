"""What `ws-tma-store` and `ws-tma-load` share: matching helpers on the tile IR, the limits of a
TMA box, the launch-time test of a pointer argument's view, and the descriptor arguments
both passes add to a kernel.

Both passes turn pointer-tile accesses into TMA accesses of a descriptor the runtime (and the
interpreter) builds at launch from a pointer argument: the kernel gets a trailing
`!tile.desc<...>` argument, and `ws.tma_stores` / `ws.tma_loads` on the kernel record which
arguments the descriptor is built from. `ws-host-descriptors` does the same for the descriptors a
kernel makes itself (`tile.make_desc`), recorded in `ws.host_descs`.
"""

from __future__ import annotations

from typing import NamedTuple

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, TensorType
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


def written_arguments(kernel: func.FuncOp) -> set[int]:
    """The kernel arguments some store or atomic op of the kernel writes through (any argument
    its pointer operand depends on; a `ws.host_descs` descriptor stands for its pointer)."""
    from wsdialects.transforms.partition import writes_memory

    built = {e["desc"]: e["ptr"] for e in host_desc_contract(kernel.attributes.get(HOST_DESCS_ATTR))}
    out: set[int] = set()
    for o in kernel.body.walk():
        if not writes_memory(o) or not o.operands:
            continue
        stack, seen = [o.operands[0]], set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if isinstance(v, BlockArgument):
                if v.block is kernel.body.block:
                    out.add(built.get(v.index, v.index))
                elif isinstance(p := v.block.parent_op(), scf.ForOp) and v.index > 0:
                    stack += [p.iter_args[v.index - 1], p.body.block.last_op.operands[v.index - 1]]
            elif isinstance(v.owner, Operation):
                stack += list(v.owner.operands)
    return out


def erase_dead(values: list[SSAValue]) -> None:
    """Erase the side-effect-free ops (without regions) that computed `values` and have no use
    left, and so on back through their operands: what a pass leaves behind when it replaces an
    access (ws-tma-load's pointer arithmetic, ws-host-descriptors' descriptor operands)."""
    from xdsl.traits import is_side_effect_free

    stack = [v.owner for v in values if isinstance(v.owner, Operation)]
    while stack:
        o = stack.pop()
        if o.parent is None or any(r.uses for r in o.results) or not is_side_effect_free(o) or o.regions:
            continue
        operands = list(o.operands)
        o.detach()
        o.erase()
        stack += [v.owner for v in operands if isinstance(v.owner, Operation)]


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
    return strided_view_problem([rows, cols], [stride, 1], itemsize, base, elements, whole_rows)


def lies_inside(shape: list[int], strides: list[int], elements: int) -> bool:
    """Whether the view of sizes `shape` (each at least 1) and non-negative element strides
    `strides` ends inside an array of `elements` elements."""
    return sum((n - 1) * s for n, s in zip(shape, strides)) + 1 <= elements


def strided_view_problem(shape: list[int], strides: list[int], itemsize: int, base: int, elements: int,
                         whole_rows: bool = True) -> str | None:
    """`view_problem` for a view of any rank: sizes `shape` and element strides `strides`
    (outermost first) of an array of `elements` elements at `base`; TMA reads the innermost
    dimension contiguous, so an innermost stride other than 1 is a problem too."""
    dims = " x ".join(map(str, shape))
    if any(n < 1 for n in shape) or any(s < 0 for s in strides):
        return f"a {dims} view with strides {list(strides)}"
    if not lies_inside(shape, strides, elements):
        what = f"a row stride of {strides[0]}" if len(shape) == 2 else f"strides {list(strides)}"
        return f"the {dims} view with {what} ends past the {elements} elements"
    if strides[-1] != 1:
        return f"an innermost stride of {strides[-1]} elements (TMA reads contiguous rows)"
    checks = [*((("row stride" if len(shape) == 2 else f"stride of dim {d}"), s * itemsize)
                for d, s in enumerate(strides[:-1])), ("base address", base)]
    if whole_rows:
        checks.insert(len(strides) - 1, ("row", shape[-1] * itemsize))
    for what, v in checks:
        if v % 16:
            return f"a {what} of {v} bytes is not a multiple of 16"
    return None


def add_kernel_arg(kernel: func.FuncOp, t: Attribute, name: str) -> BlockArgument:
    """A new last argument of `kernel` of type `t` (named `name` in the printed IR). A kernel
    with argument attributes (an imported one) gets an empty one for it: the printer pairs them
    with the arguments, and would drop an argument without one."""
    entry = kernel.body.block
    arg = entry.insert_arg(t, len(entry.args))
    arg.name_hint = name
    kernel.function_type = func.FunctionType.from_lists([a.type for a in entry.args], [])
    if kernel.arg_attrs is not None:
        kernel.arg_attrs = ArrayAttr([*kernel.arg_attrs.data, DictionaryAttr({})])
    return arg


# ---- ws-tma-load's launch contract, read by the GPU runtime and the interpreter alike

def poly_attr(p: dict, atoms: list) -> ArrayAttr:
    """A polynomial {monomial (atom numbers): coefficient} over kernel arguments (`atoms[n]`, block
    arguments of the kernel) as a contract writes it: a list of monomials [coefficient, argument, ...]."""
    return ArrayAttr([ArrayAttr([IntegerAttr(k, 64), *(IntegerAttr(atoms[a].index, 32) for a in m)])
                      for m, k in sorted(p.items())])


def _poly(a) -> list[list[int]]:
    """A contract's polynomial as plain data (`poly_attr`'s inverse)."""
    return [[x.value.data for x in m.data] for m in a.data]


def load_contract(attr) -> list[dict]:
    """`ws.tma_loads` as plain data: per descriptor {ptr, desc, shape: [rows, cols], stride,
    extent, unit, multiples}, each bound and the stride a list of monomials [coefficient,
    argument, ...]; `unit`: the argument the kernel's innermost stride is (taken to be 1), or
    None; `multiples`: products of arguments the row stride must divide (`load_offset_problem`)."""
    poly = _poly
    out = []
    for e in attr.data:
        d = e.data
        out.append({"ptr": d["ptr"].value.data, "desc": d["desc"].value.data,
                    "shape": [poly(p) for p in d["shape"].data], "stride": poly(d["stride"]),
                    "extent": "extent" in d and bool(d["extent"].value.data),
                    "unit": d["unit"].value.data if "unit" in d else None,
                    "multiples": [poly(p) for p in d["multiples"].data] if "multiples" in d else []})
    return out


def load_offset_problem(entry: dict, args, names) -> str | None:
    """Why a launch breaks a ws-tma-load view's `multiples` term, or None. A pointer that starts
    at a per-program offset (`Q + off_z * stride_qz + off_h * stride_qh`, a block pointer's
    base) is read through the view of the whole tensor, the offset turned into rows: the kernel
    computes `off_z * (stride_qz / stride_qm)`, exact where each such factor is a multiple of
    the row stride. `names(i)` names argument i."""
    stride = evaluate(entry["stride"], args)
    for p in entry.get("multiples", []):
        v = evaluate(p, args)
        if stride == 0 or v % stride:
            what = " + ".join("*".join([*([str(c)] if c != 1 else []), *(names(i) for i in idx)]) for c, *idx in p)
            return (f"the kernel reads it as rows of {stride} elements (its row stride) and offsets each program's "
                    f"rows by {what} = {v} elements, which is not a multiple of the row stride (pass a tensor whose "
                    f"outer strides are multiples of its row stride, e.g. a contiguous one)")
    return None


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
    elements of the pointer argument (which holds `elements`). An unmasked row axis (`extent`)
    covers the rows the array holds. The column stride is `load_step`'s."""
    cols, stride = evaluate(entry["shape"][1], args), evaluate(entry["stride"], args)
    if entry["extent"]:
        last = (cols - 1) * load_step(entry, args) + 1  # the elements a row spans
        rows = (elements - last) // stride + 1 if stride > 0 and cols > 0 and elements >= last else 0
    else:
        rows = evaluate(entry["shape"][0], args)
    return rows, cols, stride


def load_step(entry: dict, args) -> int:
    """The column stride of a ws-tma-load view at a launch: 1, but where the kernel's column
    stride is an argument (`unit`), which the kernel is compiled for at 1 and a launch may set
    otherwise (the launch then reads the view through a contiguous copy)."""
    return int(args[entry["unit"]]) if entry.get("unit") is not None else 1


def padded_cols(cols: int, itemsize: int) -> int:
    """The row stride (elements) of an aligned copy of a view: rows padded to 16 bytes."""
    return -(-cols * itemsize // 16) * 16 // itemsize


# ---- ws-host-descriptors' launch contract, read by the GPU runtime and the interpreter alike

HOST_DESCS_ATTR = "ws.host_descs"


def host_desc_contract(attr) -> list[dict]:
    """`ws.host_descs` as plain data (none without it): per descriptor {ptr, desc, shape, strides,
    stored}, each size and stride (outermost first) a list of monomials [coefficient, argument,
    ...]; `stored`: the kernel writes through the pointer argument, so the launch may not build
    the descriptor over a copy of it."""
    poly = _poly
    if attr is None:
        return []
    return [{"ptr": d["ptr"].value.data, "desc": d["desc"].value.data,
             "shape": [poly(p) for p in d["shape"].data], "strides": [poly(p) for p in d["strides"].data],
             "stored": "stored" in d and bool(d["stored"].value.data)} for d in (e.data for e in attr.data)]


def host_desc_view(entry: dict, args) -> tuple[list[int], list[int]]:
    """(sizes, element strides) of the tensor a ws-host-descriptors descriptor covers at a launch."""
    return [evaluate(p, args) for p in entry["shape"]], [evaluate(p, args) for p in entry["strides"]]


class LaunchView(NamedTuple):
    """What a launch's arguments make of one `ws.tma_loads` / `ws.host_descs` entry: the view of
    the pointer argument the descriptor covers (sizes and element strides, outermost first);
    `copy`: TMA cannot take it, and the descriptor covers an aligned copy with rows padded to
    16 bytes (the kernel only reads the argument); `empty`: an extent is 0, the descriptor covers
    nothing and every box read through it is zeros (a launch whose kernel reads nothing there;
    TMA cannot encode a 0-extent dimension, so the GPU runtime builds it over a zero buffer);
    `problem`: why the launch is refused, or None (with a problem the other fields mean nothing)."""

    shape: list[int]
    strides: list[int]
    copy: bool = False
    empty: bool = False
    problem: str | None = None


def launch_view(entry: dict, args, elements: int, itemsize: int, base: int, names) -> LaunchView:
    """The view a launch with arguments `args` gives a `load_contract` or `host_desc_contract`
    entry over its pointer argument (`elements` elements of `itemsize` bytes at `base`): the
    one check of the launch contract, which the GPU runtime and the interpreter both call.
    `names(i)` names argument i. A ws-tma-load view's bounds are the kernel's masks, so a bound
    at or below 0 is an empty view; a host descriptor's sizes are the tensor's, and a negative
    one is a problem. A ws-tma-load view is always readable through a copy; a host descriptor's
    only where the kernel does not write through it (`stored`)."""
    if "strides" in entry:
        shape, strides = host_desc_view(entry, args)
        dims = " x ".join(map(str, shape))
        if any(n < 0 for n in shape) or any(s < 0 for s in strides):
            return LaunchView(shape, strides, problem=f"the kernel makes a descriptor of a {dims} tensor with "
                                                      f"strides {strides} over it: a size or stride is negative")
        if 0 in shape:
            return LaunchView(shape, strides, empty=True)
        if not lies_inside(shape, strides, elements):
            return LaunchView(shape, strides, problem=f"the kernel makes a descriptor of a {dims} tensor with "
                                                      f"strides {strides} over it, which the array of {elements} "
                                                      "elements does not hold")
        copy_ok = not entry["stored"]
    else:
        why = load_offset_problem(entry, args, names)
        rows, cols, stride = load_view(entry, args, elements)
        step = load_step(entry, args)  # a column stride other than 1: a contiguous copy
        shape, strides = [max(rows, 0), max(cols, 0)], [stride, step]
        if why is not None:
            return LaunchView(shape, strides, problem=why)
        if 0 in shape:
            return LaunchView(shape, strides, empty=True)
        if stride < 0 or step < 1 or (step == 1 and stride < cols) or not lies_inside(shape, strides, elements):
            return LaunchView(shape, strides, problem=(
                f"the kernel reads a {rows} x {cols} view with a row stride of {stride} elements"
                f"{f' and a column stride of {step}' if step != 1 else ''}, which the array of {elements} "
                "elements does not hold"))
        copy_ok = True
    why = strided_view_problem(shape, strides, itemsize, base, elements, whole_rows=False)
    if why is not None and not copy_ok:
        return LaunchView(shape, strides, problem=f"the kernel writes through a TMA descriptor over it, and TMA "
                                                  f"cannot take the view: {why}")
    return LaunchView(shape, strides, copy=why is not None)


def built_argument_count(stores: int, loads: int, host_descs: int) -> int:
    """How many trailing arguments the launch builds: a descriptor and a flag per ws-tma-store
    store, a descriptor per ws-tma-load view and per ws-host-descriptors descriptor."""
    return 2 * stores + loads + host_descs
