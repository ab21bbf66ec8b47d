"""Run-time values of the interpreter and the kernel argument conventions.

Tiles are numpy arrays of the element type (fp8 and bf16 through ml_dtypes);
scalars are numpy scalars. Global memory is the caller's arrays: a `!tile.ptr<T>`
argument is a flat, row-major view of one, a `!tile.desc<tensor<BxCxT>>` argument
is the 2-D (or 3-D) array itself, so results land in the arrays passed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute

from wsdialects.scalar_args import scalar_problem
from wsdialects.element_types import FLOAT_DTYPES, INT_DTYPES  # noqa: F401 - the interpreter's dtypes
from wsdialects.tile import DescArrayType, DescType, PtrType


class InterpretError(Exception):
    """A run-time fault of the interpreted kernel (out-of-bounds access, division
    by zero, a read of a released aref slot, ...), with the op's location."""


class Guarded:
    """A run-time value that a read must look at before handing it out (a released
    tile, an MMA result still in flight): one isinstance test per read."""


def dtype_of(t: Attribute) -> np.dtype:
    """The numpy dtype holding values of the (element) type `t`."""
    if isinstance(t, TensorType):
        t = t.element_type
    if type(t) in FLOAT_DTYPES:
        return FLOAT_DTYPES[type(t)]
    if isinstance(t, IntegerType) and t.width.data in INT_DTYPES:
        return INT_DTYPES[t.width.data]
    if isinstance(t, IndexType | PtrType):
        return np.dtype(np.int64)  # indices; pointers are element offsets
    raise InterpretError(f"no run-time representation for type {t}")


def is_float_dtype(dt: np.dtype) -> bool:
    return dt in FLOAT_DTYPES.values()


@dataclass(frozen=True)
class Pointer:
    """A scalar `!tile.ptr<T>`: element `offset` of the flat buffer `buf`."""

    buf: np.ndarray
    offset: int


@dataclass(frozen=True)
class PtrTile:
    """A tile of pointers into one buffer: `offsets` holds element offsets."""

    buf: np.ndarray
    offsets: np.ndarray

    @property
    def shape(self):
        return self.offsets.shape


@dataclass(frozen=True)
class Descriptor:
    """A TMA descriptor: the global array and the block one access moves."""

    array: np.ndarray
    block: tuple[int, ...]


class _Argument:
    """`argument INDEX (%NAME: TYPE)` in an error message, printed only if one is raised."""

    __slots__ = ("t", "index", "name")

    def __init__(self, t: Attribute, index: int, name: str | None = None):
        self.t, self.index, self.name = t, index, name

    def __format__(self, spec: str) -> str:
        named = f"%{self.name}: {self.t}" if self.name else f"{self.t}"
        return format(f"argument {self.index} ({named})", spec)


def tma_store_arguments(entries, args, params) -> list:
    """The trailing arguments of ws-tma-store's launch contract (`ws.tma_stores`), as the GPU
    runtime builds them: per store, the M x N view of the pointer argument with row stride S,
    and 1, where TMA can take it (`tma_common.view_problem`); else a block of zeros (never
    written) and 0, and the kernel takes its pointer store."""
    from wsdialects.transforms.tma_common import view_problem

    out = []
    for e in entries.data:
        at = {k: e.data[k].value.data for k in ("ptr", "rows", "cols", "stride", "desc")}
        arr = args[at["ptr"]]
        block = params[at["desc"]].type.block
        dummy = np.zeros(tuple(block.get_shape()), dtype_of(block))
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            out += [dummy, 0]  # the pointer argument's own check reports it
            continue
        flat = arr.reshape(-1)
        m, n, s = (int(args[at[k]]) for k in ("rows", "cols", "stride"))
        it = flat.itemsize
        ok = view_problem(m, n, s, it, flat.ctypes.data, flat.size) is None
        if ok:
            out += [np.lib.stride_tricks.as_strided(flat, (m, n), (s * it, it)), 1]
        else:
            out += [dummy, 0]
    return out


def _dtype_mismatch(want: np.dtype, got: np.dtype) -> str:
    """The message for an array of dtype `got` where `want` is needed; numpy has no bf16 or fp8
    dtype of its own, so for those it says where the dtype comes from."""
    msg = f"expected dtype {want}, got {got}"
    if type(want).__module__.startswith("ml_dtypes") or want.type.__module__.startswith("ml_dtypes"):
        msg += f" (numpy has no {want}: `import ml_dtypes` and pass `x.astype(ml_dtypes.{want})`)"
    return msg


def to_runtime(t: Attribute, arg, index: int, name: str | None = None):
    """Convert the Python argument `arg` for parameter `index` (`%name`) of type `t`: a numpy
    array of the element type for a pointer or descriptor (bf16 and fp8 through ml_dtypes:
    `ml_dtypes.bfloat16`), a number of the right kind for a scalar (`scalar_args`)."""
    where = _Argument(t, index, name)
    if isinstance(t, DescType):
        if not isinstance(arg, np.ndarray):
            raise TypeError(f"{where}: expected a numpy array for a TMA descriptor, got {type(arg).__name__}")
        block = tuple(t.block.get_shape())
        if arg.ndim != len(block) and not (len(block) == 2 and arg.ndim == 3):
            raise TypeError(f"{where}: expected a {len(block)}-D array"
                            f"{' (or a 3-D one, indexed by a leading index)' if len(block) == 2 else ''}, "
                            f"got {arg.ndim}-D")
        if arg.dtype != dtype_of(t.block):
            raise TypeError(f"{where}: {_dtype_mismatch(dtype_of(t.block), arg.dtype)}")
        return Descriptor(arg, block)
    if isinstance(t, DescArrayType):  # one descriptor per array of the list (tile.desc_index picks one)
        if not isinstance(arg, (list, tuple)):
            raise TypeError(f"{where}: expected a list of numpy arrays (one descriptor each), got {type(arg).__name__}")
        return tuple(to_runtime(t.element, x, index, f"{name or index}[{k}]") for k, x in enumerate(arg))
    if isinstance(t, PtrType):
        if not isinstance(arg, np.ndarray):
            raise TypeError(f"{where}: expected a numpy array for a pointer, got {type(arg).__name__}")
        if arg.dtype != dtype_of(t.pointee):
            raise TypeError(f"{where}: {_dtype_mismatch(dtype_of(t.pointee), arg.dtype)}")
        if not arg.flags.c_contiguous:
            raise TypeError(f"{where}: the array must be C-contiguous (it is addressed flat, row-major)")
        return Pointer(arg.reshape(-1), 0)
    if isinstance(t, TensorType):
        raise TypeError(f"{where}: tensor arguments are not supported; pass a pointer or descriptor")
    dt = dtype_of(t)
    if isinstance(arg, np.ndarray):
        raise TypeError(f"{where}: expected a Python number, got a numpy array")
    problem = scalar_problem(str(t), arg)
    if problem is not None:
        raise TypeError(f"{where}: {problem}")
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if not info.min <= int(arg) <= info.max:
            raise TypeError(f"{where}: {arg} does not fit {t}")
        return dt.type(int(arg))
    if dt.kind == "b":
        return np.bool_(arg)
    return np.array(arg, dtype=np.float64).astype(dt)[()]


def mma_product(x, y, acc) -> np.ndarray:
    """acc + x @ y for tile.dot and the tensor-core ops, rounded to f32 once: summed in f64
    so that the result of a row does not depend on how many rows are multiplied together
    (BLAS picks its summation order by shape, and a cooperative split halves M; in f32
    that flipped the last bit of some sums, and the before/after comparison with it)."""
    token = quiet()  # NaN / inf inputs give NaN / inf, as on the GPU, silently
    try:
        p = np.asarray(x).astype(np.float64) @ np.asarray(y).astype(np.float64)
        a = np.asarray(acc)
        if (type(p) is np.ndarray and a.shape == p.shape and (a.dtype == _F32 or a.dtype == _F64)
                and a.flags.c_contiguous):  # the sum in place: the same f64 sums, the same C-ordered result
            np.add(p, a, out=p)
            return p.astype(np.float32)
        return (p + np.asarray(acc, dtype=np.float64)).astype(np.float32)
    finally:
        unquiet(token)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)

# `np.errstate(all="ignore")` without building one per op: numpy 2 keeps its floating-point
# error settings in a context variable, and the ignoring settings derived from each current
# one (errstate keeps the buffer size and the error callback) are kept here.
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _EXTOBJ
except ImportError:  # numpy 1.x: errstate itself
    _EXTOBJ = None
_IGNORING: dict[int, tuple] = {}  # id(settings) -> (settings, the same ignoring every error)


def quiet():
    """Enter `np.errstate(all="ignore")`; returns the token for `unquiet`."""
    if _EXTOBJ is None:
        e = np.errstate(all="ignore")
        e.__enter__()
        return e
    cur = _EXTOBJ.get()
    kept = _IGNORING.get(id(cur))
    if kept is None or kept[0] is not cur:
        with np.errstate(all="ignore"):
            kept = (cur, _EXTOBJ.get())
        if len(_IGNORING) > 64:
            _IGNORING.clear()
        _IGNORING[id(cur)] = kept
    return _EXTOBJ.set(kept[1])


def unquiet(token) -> None:
    """Leave what `quiet` entered."""
    if _EXTOBJ is None:
        token.__exit__(None, None, None)
    else:
        _EXTOBJ.reset(token)
