"""Random inputs for a kernel nobody wrote an argument builder for, and the
before/after comparison of the semantic modes.

From the kernel's signature alone (OVERVIEW.md's argument conventions): a
`!tile.desc<tensor<BxC>>` gets a 2-D array (3-D when the kernel indexes it with
three indices) of random size around its block, a `!tile.ptr<T>` a flat array
large enough for the offsets small sizes give, integer scalars one common size
S (so M = N = K = ld and strides agree), floats a random scale.  Out-of-bounds
descriptor reads are zeros and writes are dropped, so any size is valid; a
kernel that faults anyway on these inputs before the pipeline is not compared.

    grid, args = make_inputs(kernel, np.random.default_rng(7))
"""

from __future__ import annotations

import numpy as np

from wsdialects.interpreter.values import dtype_of, is_float_dtype

PTR_ELEMENTS = 1 << 17
SIZES = [1, 17, 64, 100, 129, 200]  # small: the interpreter runs every iteration


def _random_array(rng: np.random.Generator, shape, dtype: np.dtype) -> np.ndarray:
    if is_float_dtype(dtype):
        return rng.standard_normal(shape).astype(np.float32).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    return rng.integers(-8, 8, shape).astype(dtype)


def _index_count(kernel, arg) -> int:
    """How many indices the kernel's TMA ops give this descriptor (2 or 3)."""
    for use in arg.uses:
        op = use.operation
        if op.name == "tile.desc_load":
            return len(op.operands) - 1
        if op.name == "tile.desc_store":
            return len(op.operands) - 2
    return 2


def _program_axes(kernel) -> int:
    axes = [op.properties["axis"].value.data for op in kernel.walk()
            if op.name in ("tile.program_id", "tile.num_programs") and "axis" in op.properties]
    return max(axes, default=0) + 1


def make_inputs(kernel, rng: np.random.Generator) -> tuple[tuple[int, ...], list]:
    """(grid, args) for ``kernel`` (a ``func.func``), random but valid."""
    from xdsl.dialects.builtin import TensorType

    from wsdialects.tile import DescArrayType, DescType, PtrType

    size = int(rng.choice(SIZES))
    args: list = []
    for arg in kernel.body.block.args:
        t = arg.type
        if isinstance(t, DescArrayType):  # a few groups' arrays, each as a descriptor argument's
            block = [int(d) for d in t.block.get_shape()]
            args.append([_random_array(rng, [max(1, int(b * rng.choice([0.5, 1, 1.5]))) for b in block],
                                       dtype_of(t.block)) for _ in range(int(rng.integers(1, 4)))])
        elif isinstance(t, DescType):
            block = [int(d) for d in t.block.get_shape()]
            shape = [max(1, int(b * rng.choice([0.5, 1, 1.5, 2, 2.5]))) for b in block]
            if len(block) == 2 and _index_count(kernel, arg) == 3:
                shape = [int(rng.integers(1, 3)), *shape]
            args.append(_random_array(rng, shape, dtype_of(t.block)))
        elif isinstance(t, PtrType):
            args.append(_random_array(rng, (PTR_ELEMENTS,), dtype_of(t.pointee)))
        elif isinstance(t, TensorType):
            raise ValueError("tensor arguments are not supported by the interpreter")
        else:
            dt = dtype_of(t)
            if dt == np.bool_:
                args.append(bool(rng.random() < 0.5))
            elif dt.kind in "iu":
                args.append(size)
            else:
                args.append(float(rng.choice([0.125, 0.5, 1.0, 0.0883883])))
    grid = tuple(int(rng.integers(1, 3)) for _ in range(min(3, _program_axes(kernel))))
    return grid, args


class _WriteLog:
    """Who wrote what during one run, to find inputs on which the kernel's own
    result depends on an order nothing fixes: two lanes of one store, or two
    programs, writing different values to one element.  (A pipeline may then
    reorder those writes -- a cooperative split divides a store between warp
    groups, a persistent kernel runs its tiles in another order -- and the
    difference is the input's race, not a miscompile.)"""

    def __init__(self):
        self.owner: dict[int, np.ndarray] = {}
        self.flat: dict[int, np.ndarray] = {}
        self.race: str | None = None

    def record(self, frame, buf: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
        if self.race is not None or index.size == 0:
            return
        key = id(buf)
        owner = self.owner.setdefault(key, np.full(buf.size, -1, dtype=np.int64))
        pid = (frame.pid[2] * 4096 + frame.pid[1]) * 4096 + frame.pid[0]
        old = buf.reshape(-1)[index].astype(np.float64)
        new = np.asarray(values, dtype=np.float64).reshape(-1)
        same = (old == new) | (np.isnan(old) & np.isnan(new))
        if np.any((owner[index] >= 0) & (owner[index] != pid) & ~same):
            self.race = "two programs write different values to one element"
        order = np.argsort(index, kind="stable")
        dup = index[order][1:] == index[order][:-1]
        if np.any(dup & (new[order][1:] != new[order][:-1])):
            self.race = "two lanes of one store write different values to one element"
        owner[index] = pid

    def flat_index(self, array: np.ndarray) -> np.ndarray:
        if id(array) not in self.flat:
            self.flat[id(array)] = np.arange(array.size).reshape(array.shape)
        return self.flat[id(array)]


def racy_run(module, name: str, grid, args) -> tuple[list, str | None]:
    """:func:`run`, and whether the result depends on the order of writes
    (see :class:`_WriteLog`); the interpreter's store ops are wrapped meanwhile."""
    from wsdialects.interpreter import core, ops_tile

    log = _WriteLog()
    saved = {n: core.IMPLS[n] for n in ("tile.store", "tile.desc_store")}

    def store(frame, op, a):
        buf, offs, m = ops_tile._lanes(op, a[0], a[2] if len(a) > 2 else None)
        v = np.broadcast_to(np.asarray(a[1], dtype=buf.dtype), offs.shape)
        log.record(frame, buf, offs[m].reshape(-1), v[m].reshape(-1))
        return saved["tile.store"](frame, op, a)

    def desc_store(frame, op, a):
        desc, idx = a[0], [int(i) for i in a[1:-1]]
        w = ops_tile._window(desc, idx)
        if w is not None and op.reduce_kind is None:  # reductions commute: overlapping ones are no race
            log.record(frame, desc.array, log.flat_index(desc.array)[w[0]].reshape(-1),
                       np.asarray(a[-1])[w[1]].reshape(-1))
        return saved["tile.desc_store"](frame, op, a)

    core.IMPLS.update({"tile.store": store, "tile.desc_store": desc_store})
    try:
        return run(module, name, grid, args), log.race
    finally:
        core.IMPLS.update(saved)


def run(module, name: str, grid, args, seed=None) -> list:
    """Interpret ``name`` on copies of ``args``; the arrays afterwards."""
    import wsdialects

    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    wsdialects.interpret(module, name, grid, copies, seed=seed)
    return [a for a in copies if isinstance(a, np.ndarray)]


def differences(before: list[np.ndarray], after: list[np.ndarray]) -> str | None:
    """None when every array is bit-for-bit the same (NaN equal to NaN), else
    which argument differs and by how much."""
    for i, (x, y) in enumerate(zip(before, after)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"array {i}: {x.shape} {x.dtype} became {y.shape} {y.dtype}"
        a, b = x.astype(np.float64), y.astype(np.float64)
        if not np.array_equal(a, b, equal_nan=True):
            bad = ~((a == b) | (np.isnan(a) & np.isnan(b)))
            return f"array argument {i} differs in {int(bad.sum())} of {a.size} elements"
    return None
