"""The semantic oracle: executes tile kernels (and their aref / warp_group forms)
on the CPU over numpy.

xDSL's own interpreter is sequential and its arith implementations are scalar;
this one executes tensors elementwise with MLIR's semantics and runs
`warp_group` partitions concurrently (see `partitions.py`). Op semantics are
registered per op name by the `ops_*` modules with `@impl("dialect.op")`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue

from wsdialects.diagnostics import location_of
from wsdialects.interpreter.values import Guarded, InterpretError, to_runtime
from wsdialects.tile import KERNEL_ATTR

# op name -> fn(frame, op, operand values) -> result values
IMPLS: dict[str, Callable[["Frame", Operation, list[Any]], Sequence[Any]]] = {}


def impl(*names: str):
    """Register the semantics of the ops `names`."""

    def deco(fn):
        for n in names:
            IMPLS[n] = fn
        return fn

    return deco


def where(op: Operation) -> str:
    loc = location_of(op)
    return f"{loc[0]}:{loc[1]}:{loc[2]}: " if loc else ""


class Frame:
    """One thread of execution: a program instance, or one partition of it.

    `env` maps `id(value)` of each SSA value computed so far to its run-time value (an
    id, not the value: xDSL hashes SSA values in Python; the module outlives the run)."""

    def __init__(self, interp: "Interpreter", pid: tuple[int, int, int], grid: tuple[int, int, int],
                 env: dict[int, Any], partition: int = 0, scheduler=None, seed: int | None = None):
        self.interp, self.pid, self.grid = interp, pid, grid
        self.env, self.partition, self.scheduler, self.seed = env, partition, scheduler, seed
        self.inflight: list = []  # mma.async_dot results not yet retired, oldest first
        # Whether `env` may hold a Guarded value (set where one is made: an mma.async_dot's
        # result, aref.consumed's poison; kept by `fork`). Guarded values never leave the
        # frame that made them (a read by aref.put or warp_group.gather refuses them), so
        # until then reads need not look.
        self.guarded = False

    def fork(self, partition: int, scheduler) -> "Frame":
        sub = Frame(self.interp, self.pid, self.grid, dict(self.env), partition, scheduler, self.seed)
        sub.guarded = self.guarded
        return sub

    def read(self, v: SSAValue, user: Operation) -> Any:
        try:
            val = self.env[id(v)]
        except KeyError:
            raise InterpretError(f"{where(user)}{user.name} reads a value that was never computed") from None
        if isinstance(val, Guarded):
            _check_read(val, user)
        return val

    def run_block(self, block: Block, args: Sequence[Any]) -> list[Any]:
        """Execute `block` with `args` bound; returns the terminator's operands."""
        env = self.env
        arg_ids, steps = self.interp.block_plan(block)
        for a, v in zip(arg_ids, args, strict=True):
            env[a] = v
        get = env.__getitem__
        for fn, op, ids, kind, res in steps:
            if kind == _CONSTANT:  # fn: [its implementation, its value once computed]
                v = fn[1]
                if v is None:
                    (v,) = fn[0](self, op, [])
                    fn[1] = v
                env[res] = v
                continue
            if kind <= _TERMINATOR:  # an op without regions, or the terminator; `Frame.read` inlined
                try:
                    vals = list(map(get, ids))
                except KeyError:
                    vals = [self.read(v, op) for v in op.operands]  # raises what the first bad read raises
                if self.guarded:
                    for v in vals:
                        if isinstance(v, Guarded):
                            _check_read(v, op)
                if kind == _TERMINATOR:
                    return vals
                values = fn(self, op, vals)
                if kind == _ONE:
                    try:
                        (env[res],) = values
                        continue
                    except (ValueError, TypeError):  # not one value: as `zip` reports it
                        pass
                for r, v in zip((res,) if kind == _ONE else res, values, strict=True):
                    env[r] = v
            elif kind == _REGION:
                for r, v in zip(res, fn(self, op, []), strict=True):
                    env[r] = v
            else:
                raise InterpretError(f"{where(op)}the interpreter does not support '{op.name}'")
        return []

    def run_op(self, op: Operation) -> None:
        fn = IMPLS.get(op.name)
        if fn is None:
            raise InterpretError(f"{where(op)}the interpreter does not support '{op.name}'")
        if op.name in REGION_OPS:
            results = fn(self, op, [])
        else:
            results = fn(self, op, [self.read(v, op) for v in op.operands])
        for r, v in zip(op.results, results, strict=True):
            self.env[id(r)] = v


def _check_read(val, user: Operation) -> None:
    """A read of a released tile or of an in-flight MMA result (where `user` may not)."""
    from wsdialects.aref.semantics import Released

    if isinstance(val, Released):
        raise InterpretError(f"{where(user)}{user.name} reads a tile of {val.what} after it was consumed")
    if isinstance(val, InFlight) and user.name not in IN_FLIGHT_OK:
        raise InterpretError(
            f"{where(user)}{user.name} reads the result of an mma.async_dot before an mma.wait retires it"
        )


# Kinds of block_plan steps: an op whose value is computed once per run (SAME_EVERY_TIME), an
# op without regions and one result, one without regions and another number of results, the
# terminator, an op that runs its regions itself, an op the interpreter does not know.
_CONSTANT, _ONE, _MANY, _TERMINATOR, _REGION, _UNSUPPORTED = range(6)

# Implementations whose result for an op without operands is the same at every execution in
# a run (arith.constant's): a _CONSTANT step calls it once per run and keeps the value.
SAME_EVERY_TIME: set[Callable] = set()


class InFlight(Guarded):
    """The result of an mma.async_dot that no mma.wait has retired yet."""

    def __init__(self, value, inputs):
        self.value, self.inputs = value, inputs


# Ops that may carry an in-flight accumulator without reading it.
IN_FLIGHT_OK = {"scf.yield", "scf.for", "scf.if", "mma.wait", "mma.async_dot"}

REGION_OPS = {"scf.for", "scf.if", "warp_group.region", "aref.consumed"}


@impl("scf.for")
def _for(frame: Frame, op: scf.ForOp, _):
    plan = frame.interp.region_ops.get(id(op))
    if plan is None:  # what the op's accessors give, read once per run
        from wsdialects.interpreter.values import dtype_of

        block = op.body.block
        plan = frame.interp.region_ops[id(op)] = ((op.lb, op.ub, op.step), tuple(op.iter_args), block,
                                                  dtype_of(block.args[0].type))
    bounds, iter_args, block, dt = plan
    lb, ub, step = (int(frame.read(v, op)) for v in bounds)
    if step <= 0:
        raise InterpretError(f"{where(op)}scf.for step must be positive, got {step}")
    carried = [frame.read(v, op) for v in iter_args]
    run = frame.run_block
    for i in range(lb, ub, step):
        carried = run(block, [dt.type(i), *carried])
    return carried


@impl("scf.if")
def _if(frame: Frame, op: scf.IfOp, _):
    plan = frame.interp.region_ops.get(id(op))
    if plan is None:  # the condition and the blocks of the two branches (None: an empty one)
        plan = frame.interp.region_ops[id(op)] = (
            op.cond, *(r.block if r.blocks else None for r in (op.true_region, op.false_region)))
    cond, then, other = plan
    block = then if bool(frame.read(cond, op)) else other
    if block is None:
        return []
    return frame.run_block(block, [])


class Interpreter:
    """Runs the kernels of one module."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.constants: dict[int, Any] = {}  # id(arith.constant op) -> its value
        self.scalar_types: dict[int, Any] = {}  # id(op) -> its scalar integer result's dtype (ops_arith)
        self.region_ops: dict[int, tuple] = {}  # id(scf.for / scf.if op) -> what `_for` / `_if` read of it
        self._blocks: dict[int, tuple] = {}  # id(block) -> block_plan(block)

    def block_plan(self, block: Block) -> tuple:
        """(ids of the block's arguments, one step per op up to its terminator): each step
        (its implementation (for _CONSTANT, [it, the value once computed]) or None, the op,
        ids of its operands, its kind (_CONSTANT, _ONE, _MANY, _TERMINATOR, _REGION or
        _UNSUPPORTED), the id of its result (_CONSTANT, _ONE) or ids of its results), looked
        up once per block per run."""
        plan = self._blocks.get(id(block))
        if plan is None:
            steps = []
            op = block._first_op  # noqa: SLF001 - `block.ops` in order, without its iterator
            while op is not None:
                name = op.name
                ids = tuple(map(id, op._operands))  # noqa: SLF001 - (`op.operands` wraps this tuple)
                if name in ("scf.yield", "func.return"):
                    steps.append((None, op, ids, _TERMINATOR, ()))
                    break
                res = tuple(map(id, op.results))
                fn = IMPLS.get(name)
                if fn is None:
                    kind = _UNSUPPORTED
                elif name in REGION_OPS:
                    kind = _REGION
                elif fn in SAME_EVERY_TIME and len(res) == 1 and not ids:
                    kind, fn = _CONSTANT, [fn, None]
                else:
                    kind = _ONE if len(res) == 1 else _MANY
                steps.append((fn, op, ids, kind, res[0] if kind <= _ONE else res))
                op = op._next_op  # noqa: SLF001
            plan = self._blocks[id(block)] = (tuple(map(id, block.args)), tuple(steps))
        return plan

    def kernel(self, name: str) -> func.FuncOp:
        for op in self.module.walk():
            if isinstance(op, func.FuncOp) and op.sym_name.data == name:
                if KERNEL_ATTR not in op.attributes:
                    raise InterpretError(f"@{name} is not a kernel (no {KERNEL_ATTR} attribute)")
                return op
        names = [op.sym_name.data for op in self.module.walk() if isinstance(op, func.FuncOp)]
        raise InterpretError(f"no kernel @{name} in the module (functions: {', '.join(names) or 'none'})")

    def run(self, name: str, grid: Sequence[int] | int, args: Sequence[Any], seed: int | None = None) -> None:
        kernel = self.kernel(name)
        grid3 = _grid3(grid)
        params = kernel.body.block.args
        # trailing arguments the launch builds, before ws-persistent's grid: ws-host-descriptors' (a
        # descriptor per tile.make_desc), ws-tma-load's (one per view), ws-tma-store's (a descriptor and a
        # flag per store)
        from wsdialects.interpreter.tma_loads import built_arguments

        args, hidden = built_arguments(kernel, args, params)
        contract = kernel.attributes.get("ws.persistent")
        if contract is not None:
            # Launch contract of ws-persistent: min(programs, tiles) programs, the
            # user's grid passed in the three trailing arguments.
            programs = contract.data["programs"].value.data
            tiles = grid3[0] * grid3[1] * grid3[2]
            args = [*args, *grid3]
            grid3 = (min(programs, tiles), 1, 1)
        if len(args) != len(params):
            hidden += 3 if contract is not None else 0
            raise TypeError(f"@{name} takes {len(params) - hidden} arguments, got {len(args) - hidden}")
        values = [to_runtime(p.type, a, i, p.name_hint) for i, (p, a) in enumerate(zip(params, args))]
        for z, y, x in itertools.product(range(grid3[2]), range(grid3[1]), range(grid3[0])):
            frame = Frame(self, (x, y, z), grid3, {}, 0, None, seed)
            frame.run_block(kernel.body.block, values)


def _grid3(grid: Sequence[int] | int) -> tuple[int, int, int]:
    g = (grid,) if isinstance(grid, int) else tuple(int(x) for x in grid)
    if not 1 <= len(g) <= 3 or any(x < 1 for x in g):
        raise TypeError(f"grid must be 1 to 3 positive sizes, got {grid}")
    return (g + (1, 1))[:3]  # type: ignore[return-value]
