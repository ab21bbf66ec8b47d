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

    from wsdialects.tile import DescType, PtrType

    size = int(rng.choice(SIZES))
    args: list = []
    for arg in kernel.body.block.args:
        t = arg.type
        if isinstance(t, DescType):
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
