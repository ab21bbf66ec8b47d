"""The discardable attributes of the `tile` and `ws` namespaces, verified like
MLIR's dialect attributes (`verifyOperationAttribute`): `diagnostics.verify`
checks every op's `tile.*` / `ws.*` attributes after the op's own verifier, on
the input and after every pass, so no pass ever reads one of the wrong type.

    func.func @k(...) attributes {tile.kernel, tile.num_warps = 8 : i32} { ... }
    scf.for ... { ... } {ws.schedule = {II = 23 : i32, L = 39 : i32, warps = 2 : i32}}
    %d = tile.dot ... {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 0 : i32}

`tile.num_warps` is the number of warps that run the kernel's tile code: whole
warp groups (wgmma and `setmaxnreg` work on groups of 4 warps), so a positive
multiple of 4. A CTA has at most 1024 threads (32 warps) on sm_90 and
`ws-distribute` adds a producer warp group, so a kernel not yet warp-specialized
has at most 28; a warp-specialized one (`ws.distributed`, written by
`ws-distribute`, or a `warp_group.region` / `nvgpu.wg.dispatch` in its body)
counts every warp, at most 32. Only types and shapes are checked here: whether a
`ws.stage` / `ws.order` / `ws.warp` schedule respects the dependences is a
separate check.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from wsdialects.reporting import location_of, warning
from wsdialects.tile import KERNEL_ATTR, NUM_WARPS_ATTR

WARP_GROUP_WARPS = 4  # warps per warp group (wgmma, setmaxnreg)
MAX_CTA_WARPS = 32  # 1024 threads per CTA (sm_90)
MAX_KERNEL_WARPS = MAX_CTA_WARPS - WARP_GROUP_WARPS  # room for ws-distribute's producer group
DISTRIBUTED_ATTR = "ws.distributed"
OCCUPANCY_ATTR = "ws.ctas_per_sm"  # written by ws-occupancy
SPECIALIZED_OPS = ("warp_group.region", "nvgpu.wg.dispatch")


def _int(a: Attribute) -> int | None:
    """The value of an integer attribute (`8 : i32`, `8 : index`), else None."""
    if isinstance(a, IntegerAttr) and isinstance(a.type, IntegerType | IndexType):
        return a.value.data
    return None


def _nonneg_int(name: str, a: Attribute, low: int = 0) -> None:
    v = _int(a)
    if v is None:
        example = f" (e.g. `{name} = {low} : i32`)" if ":" not in name else ""
        raise VerifyException(f"{name} must be an integer{example}, got {a}")
    if v < low:
        raise VerifyException(f"{name} must be at least {low}, got {v}")


def _pid_array(name: str, a: Attribute) -> None:
    if not isinstance(a, DenseArrayBase) or a.elt_type != IntegerType(32):
        raise VerifyException(f"{name} must be an array<i32: ...> of partition ids, got {a}")
    if any(v < 0 for v in a.get_values()):
        raise VerifyException(f"{name}: partition ids are non-negative, got {list(a.get_values())}")


def _on(op: Operation, kind: type, what: str, name: str) -> None:
    if not isinstance(op, kind):
        raise VerifyException(f"{name} belongs on {what}, not on '{op.name}'")


def _num_warps(op: Operation, a: Attribute) -> None:
    n = _int(a)
    if n is None:
        raise VerifyException(f"{NUM_WARPS_ATTR} must be an integer number of warps (e.g. "
                              f"`{NUM_WARPS_ATTR} = 8 : i32`), got {a}")
    specialized = DISTRIBUTED_ATTR in op.attributes or any(
        o.name in SPECIALIZED_OPS for r in op.regions for b in r.blocks for o in b.ops)
    most = MAX_CTA_WARPS if specialized else MAX_KERNEL_WARPS
    if n <= 0 or n % WARP_GROUP_WARPS or n > most:
        why = ("a CTA has at most 1024 threads" if specialized else
               f"a CTA has at most {MAX_CTA_WARPS} warps and ws-distribute adds a producer warp group")
        raise VerifyException(f"{NUM_WARPS_ATTR} must be a multiple of {WARP_GROUP_WARPS} (whole warp groups) "
                              f"from {WARP_GROUP_WARPS} to {most} ({why}), got {n}")


def _kernel(op: Operation, a: Attribute) -> None:
    _on(op, func.FuncOp, "a func.func", KERNEL_ATTR)
    if not isinstance(a, UnitAttr):
        raise VerifyException(f"{KERNEL_ATTR} is a unit attribute (`attributes {{{KERNEL_ATTR}}}`), got {a}")
    # the passes read a kernel's body as one block of structured control flow (scf.for, scf.if)
    blocks = op.body.blocks
    if not blocks:
        raise VerifyException(f"a {KERNEL_ATTR} function needs a body: @{op.sym_name.data} is only a declaration "
                              "(no `{ ... }`; is the input cut short?)")
    if len(blocks) > 1:
        where = location_of(blocks[1].first_op) if blocks[1].first_op is not None else None
        at = f" (the second block's first op is at line {where[1]})" if where else ""
        raise VerifyException(f"the body of a {KERNEL_ATTR} function is one block (structured control flow: "
                              f"scf.for, scf.if), @{op.sym_name.data} has {len(blocks)}{at}")


def _schedule(op: Operation, a: Attribute) -> None:
    name = "ws.schedule"
    _on(op, scf.ForOp, "an scf.for (the scheduled loop)", name)
    if not isinstance(a, DictionaryAttr):
        raise VerifyException(f"{name} must be a dictionary such as {{II = 4 : i32, L = 8 : i32, warps = 2 : i32}}, "
                              f"got {a}")
    for key, low in (("II", 1), ("L", 1), ("warps", 1), ("vl_warp", 0), ("cooperative", 1), ("issuer_warp", 0)):
        if key in a.data:
            _nonneg_int(f"{name}: {key}", a.data[key], low)
    if "solver" in a.data and not isinstance(a.data["solver"], StringAttr):
        raise VerifyException(f"{name}: solver must be a string, got {a.data['solver']}")


def _carried(op: Operation, a: Attribute) -> None:
    name = "ws.carried"
    _on(op, scf.ForOp, "an scf.for", name)
    if not isinstance(a, ArrayAttr):
        raise VerifyException(f"{name} must be a list of array<i32: ...>, one per iter_arg, got {a}")
    if len(a.data) != len(op.iter_args):
        raise VerifyException(f"{name} has {len(a.data)} entries for {len(op.iter_args)} iter_args")
    for e in a.data:
        _pid_array(name, e)


def _string(name: str, choices: tuple[str, ...] = ()) -> Callable[[Operation, Attribute], None]:
    def check(op: Operation, a: Attribute) -> None:
        if not isinstance(a, StringAttr) or (choices and a.data not in choices):
            want = " or ".join(f'"{c}"' for c in choices) if choices else "a string"
            raise VerifyException(f"{name} must be {want}, got {a}")
    return check


def _partitioned(op: Operation, a: Attribute) -> None:
    name = "ws.partitioned"
    _on(op, func.FuncOp, "a func.func", name)
    _string(name)(op, a)
    names = [n.strip() for n in a.data.split(",")]
    if len(names) < 2 or not all(names):
        raise VerifyException(f'{name} must name two or more partitions, e.g. "producer, consumer", got "{a.data}"')


def _persistent(op: Operation, a: Attribute) -> None:
    name = "ws.persistent"
    _on(op, func.FuncOp, "a func.func", name)
    if not isinstance(a, DictionaryAttr) or "programs" not in a.data:
        raise VerifyException(f"{name} must be a dictionary {{programs = N : i32}}, got {a}")
    _nonneg_int(f"{name}: programs", a.data["programs"], 1)


def _ctas_per_sm(op: Operation, a: Attribute) -> None:
    _on(op, func.FuncOp, "a func.func", OCCUPANCY_ATTR)
    _nonneg_int(OCCUPANCY_ATTR, a, 1)
    if _int(a) > 32:
        raise VerifyException(f"{OCCUPANCY_ATTR}: an SM holds at most 32 CTAs, got {_int(a)}")


def _organisation(op: Operation, a: Attribute) -> None:
    """`ws.organisation` (ws-choose-organisation): ws-hopper's options, each an integer or a boolean."""
    name = "ws.organisation"
    _on(op, func.FuncOp, "a func.func", name)
    known = ("persistent", "cooperative", "pingpong", "depth", "mma-depth", "tile-group", "ctas-per-sm")
    if not isinstance(a, DictionaryAttr) or any(k not in known or not isinstance(v, IntegerAttr)
                                                for k, v in a.data.items()):
        raise VerifyException(f"{name} must be a dictionary of ws-hopper options ({', '.join(known)}) with "
                              f"integer or boolean values, got {a}")


def ctas_per_sm(op: Operation) -> int:
    """How many CTAs of `op`'s kernel share an SM (`ws.ctas_per_sm` on the enclosing
    func.func, written by ws-occupancy; 1 without it)."""
    cur: Operation | None = op
    while cur is not None and not isinstance(cur, func.FuncOp):
        cur = cur.parent_op()
    a = cur.attributes.get(OCCUPANCY_ATTR) if cur is not None else None
    v = _int(a) if a is not None else None
    return v if v and v > 0 else 1


def _tma_stores(op: Operation, a: Attribute) -> None:
    name = "ws.tma_stores"  # written by ws-tma-store: argument indices of each converted store
    _on(op, func.FuncOp, "a func.func", name)
    nargs = len(op.body.blocks[0].args) if op.body.blocks else 0
    if not isinstance(a, ArrayAttr) or not all(isinstance(e, DictionaryAttr) for e in a.data):
        raise VerifyException(f"{name} must be a list of {{ptr, rows, cols, stride, desc}} dictionaries, got {a}")
    for e in a.data:
        for key in ("ptr", "rows", "cols", "stride", "desc"):
            if key not in e.data:
                raise VerifyException(f"{name}: an entry has no '{key}' (argument index)")
            _nonneg_int(f"{name}: {key}", e.data[key])
            if _int(e.data[key]) >= nargs:
                raise VerifyException(f"{name}: {key} = {_int(e.data[key])} is past the kernel's {nargs} arguments")


def _host_descs(op: Operation, a: Attribute) -> None:
    name = "ws.host_descs"  # written by ws-host-descriptors: how the launch builds each descriptor argument
    _on(op, func.FuncOp, "a func.func", name)
    args = op.body.blocks[0].args if op.body.blocks else ()
    if not isinstance(a, ArrayAttr) or not all(isinstance(e, DictionaryAttr) for e in a.data):
        raise VerifyException(f"{name} must be a list of {{ptr, desc, shape, strides}} dictionaries, got {a}")
    for e in a.data:
        for k in ("ptr", "desc", "shape", "strides"):
            if k not in e.data:
                raise VerifyException(f"{name}: an entry has no '{k}'")
        for k in ("ptr", "desc"):
            _nonneg_int(f"{name}: {k}", e.data[k])
            if _int(e.data[k]) >= len(args):
                raise VerifyException(f"{name}: {k} = {_int(e.data[k])} is past the kernel's {len(args)} arguments")
        ptr, desc = args[_int(e.data["ptr"])], args[_int(e.data["desc"])]
        if ptr.type.name != "tile.ptr" or desc.type.name != "tile.desc":
            raise VerifyException(f"{name}: ptr must name a !tile.ptr argument and desc a !tile.desc one, got "
                                  f"{ptr.type} and {desc.type}")
        shape, strides = e.data["shape"], e.data["strides"]
        if not (isinstance(shape, ArrayAttr) and isinstance(strides, ArrayAttr)) or len(shape) != len(strides) \
                or not all(_polynomial(p) for p in (*shape.data, *strides.data)):
            raise VerifyException(f"{name}: shape and strides must be as many polynomials, each a list of "
                                  f"monomials [coefficient, argument, ...], got {shape} and {strides}")


def _polynomial(p: Attribute) -> bool:
    """A contract's polynomial: a list of monomials [coefficient, argument, ...] of integers."""
    return isinstance(p, ArrayAttr) and all(
        isinstance(m, ArrayAttr) and m.data and all(_int(x) is not None for x in m.data) for m in p.data)


def _regs_per_thread(op: Operation, a: Attribute) -> None:
    name = "ws.regs_per_thread"  # written by ws-register-budget
    if op.name != "nvgpu.wg.branch":
        raise VerifyException(f"{name} belongs on an nvgpu.wg.branch, not on '{op.name}'")
    _nonneg_int(name, a)


CHECKS: dict[str, Callable[[Operation, Attribute], None]] = {
    KERNEL_ATTR: _kernel,
    NUM_WARPS_ATTR: _num_warps,
    "ws.schedule": _schedule,
    "ws.stage": lambda op, a: _nonneg_int("ws.stage", a),
    "ws.order": lambda op, a: _nonneg_int("ws.order", a),
    "ws.warp": lambda op, a: _nonneg_int("ws.warp", a),
    "ws.peeled": lambda op, a: _nonneg_int("ws.peeled", a),
    "ws.partition": lambda op, a: _pid_array("ws.partition", a),
    "ws.role": _string("ws.role", ("iter", "tile")),
    "ws.carried": _carried,
    "ws.partitioned": _partitioned,
    "ws.persistent": _persistent,
    "ws.organisation": _organisation,
    OCCUPANCY_ATTR: _ctas_per_sm,
    "ws.tma_stores": _tma_stores,
    "ws.host_descs": _host_descs,
    DISTRIBUTED_ATTR: _string(DISTRIBUTED_ATTR),
    "ws.regs_per_thread": _regs_per_thread,
}


# The attributes a kernel's func.func carries: the author's (tile.kernel, tile.num_warps) and those
# the passes set and read there (ws-distribute, ws-partition, ws-persistent, ws-occupancy,
# ws-tma-store, ws-tma-load, ws-host-descriptors). `ws.note` is free-form on any op.
KERNEL_FUNC_ATTRS = (KERNEL_ATTR, NUM_WARPS_ATTR, DISTRIBUTED_ATTR, "ws.partitioned", "ws.persistent",
                     OCCUPANCY_ATTR, "ws.tma_stores", "ws.tma_loads", "ws.host_descs",
                     "ws.organisation")
FREE_FORM_ATTRS = ("ws.note",)


def warn_unknown_kernel_attributes(module: Operation) -> None:
    """Warn, at the func.func, about each attribute of a `tile.kernel` function that nothing
    reads: one without a dialect prefix (`num_warps = 8 : i32` is not `tile.num_warps`, and the
    kernel would silently get 4 warps), an unknown `tile.*` / `ws.*` one, or one close to a known
    name (`tile.numwarps`), with the closest known name. Another dialect's attribute
    (`llvm.emit_c_interface`) is that dialect's business. Run once on parsed input, not after
    each pass."""
    import difflib

    for op in module.walk():
        if not isinstance(op, func.FuncOp) or KERNEL_ATTR not in op.attributes:
            continue
        for name in op.attributes:
            if name in KERNEL_FUNC_ATTRS or name in FREE_FORM_ATTRS or name in CHECKS:
                continue  # an op's attribute on a func.func is the verifier's error
            near = difflib.get_close_matches(name, KERNEL_FUNC_ATTRS, n=1, cutoff=0.6)
            if near:
                hint = f"; did you mean '{near[0]}'?"
            elif "." not in name or name.split(".")[0] in ("tile", "ws"):
                hint = f" (a kernel's own attributes are {KERNEL_ATTR} and {NUM_WARPS_ATTR})"
            else:
                continue
            warning(op, f"unknown attribute '{name}' on the {KERNEL_ATTR} function @{op.sym_name.data} is "
                        f"ignored{hint}")


def verify_attributes(op: Operation) -> None:
    """Raise VerifyException for a `tile.*` / `ws.*` attribute of `op` of the wrong
    type or shape (other attributes, e.g. `ws.note`, are free-form)."""
    for name, a in op.attributes.items():
        check = CHECKS.get(name)
        if check is not None:
            check(op, a)
