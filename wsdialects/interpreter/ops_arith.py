"""Semantics of `arith` and `math` on scalars and tensors (MLIR's definitions).

Float results are computed in float64 and rounded once to the result type (exact
for +, -, *, /, sqrt); integers wrap to their width; `divsi` truncates toward
zero, `ceildivsi` rounds up, division by zero is reported.
"""

from __future__ import annotations

import struct

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, TensorType

from wsdialects.interpreter.core import SAME_EVERY_TIME, impl, where
from wsdialects.interpreter.values import InterpretError, dtype_of, is_float_dtype, quiet, unquiet


def _out(op, value):
    """`value` as the result type of `op` (array for tensors, numpy scalar otherwise)."""
    t = op.results[0].type
    dt = dtype_of(t)
    token = quiet()
    try:
        if isinstance(t, TensorType):
            return np.asarray(value).astype(dt)
        if dt.kind in "iu" and np.asarray(value).dtype.kind == "f":
            return dt.type(int(value))
        return np.asarray(value).astype(dt)[()]
    finally:
        unquiet(token)


# Scalar integer ops on numpy signed integer scalars with a signed integer result (i8 to i64,
# index) are computed on Python ints: the same value and type `_out` gives (numpy wraps int64
# arithmetic and the cast to the result type modulo 2^64 and 2^bits alike), without numpy's
# per-call cost (about three quarters of an interpreted kernel's scalar arithmetic).
_SIGNED = frozenset((np.int8, np.int16, np.int32, np.int64))


def _scalar_int_result(frame, op) -> np.dtype | None:
    """The dtype of `op`'s scalar signed integer result, else None (kept per run)."""
    cache = frame.interp.scalar_types
    key = id(op)
    if key not in cache:
        t = op.results[0].type
        dt = None if isinstance(t, TensorType) else dtype_of(t)
        cache[key] = dt if dt is not None and dt.kind == "i" else None
    return cache[key]


def _wrapped(dt: np.dtype, x: int):
    """`x` modulo 2^bits as a value of the signed dtype `dt`."""
    half = 1 << (8 * dt.itemsize - 1)
    return dt.type((x + half) % (half << 1) - half)


def _f(x):
    return np.asarray(x).astype(np.float64)


def _i(x):
    return np.asarray(x).astype(np.int64)


# The run-time value of a constant of each (value attribute, result type): kept across runs
# (attributes and types are immutable; the entry holds both, so their ids stay theirs), read-only.
_CONSTANTS_LIMIT = 4096
_constants: dict[tuple[int, int], tuple] = {}


@impl("arith.constant")
def _constant(frame, op, _):
    cache = frame.interp.constants  # by id(op): xDSL hashes an op in Python
    key = id(op)
    if key not in cache:
        v = op.value
        t = op.results[0].type
        kept = _constants.get((id(v), id(t)))
        if kept is None:
            kept = (v, t, _constant_value(op, v, t))
            if len(_constants) >= _CONSTANTS_LIMIT:
                _constants.clear()
            _constants[(id(v), id(t))] = kept
        cache[key] = kept[2]
    return [cache[key]]


SAME_EVERY_TIME.add(_constant)  # (a constant's value never changes in a run: see core.block_plan)


def _constant_value(op, v, t):
    if isinstance(v, DenseIntOrFPElementsAttr):
        wide = np.float64 if is_float_dtype(dtype_of(t)) else np.int64
        arr = _dense_values(v, wide)
        if arr is None:
            arr = np.array(v.get_values(), dtype=wide)
        shape = tuple(t.get_shape())
        arr = np.broadcast_to(arr, shape) if arr.size == 1 else arr.reshape(shape)
        value = _out(op, arr)
        value.setflags(write=False)  # shared by every run: never written in place
        return value
    if isinstance(v, IntegerAttr | FloatAttr):
        return _out(op, v.value.data)
    raise InterpretError(f"{where(op)}unsupported constant {v}")


# Element types whose packed data numpy reads as `get_values` unpacks it (struct formats):
# IEEE f16/f32/f64 and signed integers, and whether they are floats.
_PACKED = {"<e": True, "<f": True, "<d": True, "<b": False, "<h": False, "<i": False, "<q": False}


def _dense_values(v, wide):
    """`np.array(v.get_values(), dtype=wide)` read from the packed data at once (no Python
    number per element), or None where that could differ: other element types, a float
    constant of an integer result or the reverse, a NaN (whose payload struct may not keep)."""
    try:
        fmt = v.get_element_type().format
    except Exception:  # noqa: BLE001 - (no struct format: not packed that way)
        return None
    data = v.data.data
    if _PACKED.get(fmt) is not (wide is np.float64) or len(data) != len(v) * struct.calcsize(fmt):
        return None
    token = quiet()  # (a signaling NaN warns in the cast; it is left to `get_values` below)
    try:
        arr = np.frombuffer(data, dtype=np.dtype(fmt)).astype(wide)
    finally:
        unquiet(token)
    if wide is np.float64 and np.isnan(arr).any():
        return None
    return arr


def _binary_float(fn):
    """`fn` on float values, silently: inf - inf, 0 / 0 and NaN operands give NaN (as on the
    GPU), not numpy's RuntimeWarning."""
    def run(frame, op, a):
        token = quiet()
        try:
            r = fn(_f(a[0]), _f(a[1]))
        finally:
            unquiet(token)
        return [_out(op, r)]

    return run


def _binary_int(fn, py=None):
    """`fn` on numpy int64 values; `py`, the same on Python ints, for scalars (see `_SIGNED`)."""
    if py is None:
        return lambda frame, op, a: [_out(op, fn(_i(a[0]), _i(a[1])))]

    def run(frame, op, a):
        x, y = a
        if type(x) in _SIGNED and type(y) in _SIGNED and (dt := _scalar_int_result(frame, op)) is not None:
            return [_wrapped(dt, py(int(x), int(y)))]
        return [_out(op, fn(_i(x), _i(y)))]

    return run


def _check_divisor(op, b):
    if np.any(np.asarray(b) == 0):
        raise InterpretError(f"{where(op)}{op.name}: division by zero")


def _trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) ^ (b < 0), -q, q)


for _name, _fn in {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.divide, "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin, "arith.remf": np.fmod,
}.items():
    impl(_name)(_binary_float(_fn))


def _ordered_zeros(fn, negative):
    """numpy's maximum / minimum with -0.0 < +0.0 (arith.maximumf / minimumf: MLIR's and LLVM's
    llvm.maximum / llvm.minimum), whichever operand each zero is; numpy returns one zero of a
    pair, by dtype and operand order. `negative(sx, sy)`: the sign bit of the result of two
    zeros with sign bits sx, sy."""
    def run(x, y):
        r = fn(x, y)
        zeros = (x == 0) & (y == 0)
        if zeros.any():
            r = np.where(zeros, np.where(negative(np.signbit(x), np.signbit(y)), -0.0, 0.0), r)
        return r

    return run


impl("arith.maximumf")(_binary_float(_ordered_zeros(np.maximum, np.logical_and)))
impl("arith.minimumf")(_binary_float(_ordered_zeros(np.minimum, np.logical_or)))

for _name, (_fn, _py) in {
    "arith.addi": (np.add, lambda x, y: x + y), "arith.subi": (np.subtract, lambda x, y: x - y),
    "arith.muli": (np.multiply, lambda x, y: x * y), "arith.maxsi": (np.maximum, max),
    "arith.minsi": (np.minimum, min), "arith.shli": (np.left_shift, None), "arith.shrsi": (np.right_shift, None),
}.items():
    impl(_name)(_binary_int(_fn, _py))


@impl("arith.andi", "arith.ori", "arith.xori")
def _bitwise(frame, op, a):
    fn = {"arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor}[op.name]
    dt = dtype_of(op.results[0].type)
    return [_out(op, fn(np.asarray(a[0]).astype(dt), np.asarray(a[1]).astype(dt)))]


@impl("arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi")
def _divide(frame, op, a):
    x, y = a
    if (type(x) in _SIGNED and type(y) in _SIGNED and (dt := _scalar_int_result(frame, op)) is not None
            and dt.itemsize <= 4):  # (int64 operands of at most 32 bits: no overflow in `_trunc_div`)
        return [_wrapped(dt, _divide_ints(frame, op, int(x), int(y)))]
    x, y = _i(x), _i(y)
    _check_divisor(op, y)
    q = _trunc_div(x, y)
    if op.name == "arith.remsi":
        return [_out(op, x - q * y)]
    if op.name == "arith.ceildivsi":
        q = q + (((x - q * y) != 0) & ((x > 0) == (y > 0)))
    elif op.name == "arith.floordivsi":
        q = np.floor_divide(x, y)
    return [_out(op, q)]


def _divide_ints(frame, op, x: int, y: int) -> int:
    """`_divide` on Python ints (operands of at most 32 bits)."""
    if y == 0:
        raise InterpretError(f"{where(op)}{op.name}: division by zero")
    q = abs(x) // abs(y)
    if (x < 0) != (y < 0):
        q = -q
    if op.name == "arith.remsi":
        return x - q * y
    if op.name == "arith.ceildivsi":
        return q + ((x - q * y) != 0 and (x > 0) == (y > 0))
    if op.name == "arith.floordivsi":
        return x // y
    return q


@impl("arith.divui", "arith.remui")
def _divide_unsigned(frame, op, a):
    x, y = a
    if (type(x) in _SIGNED and type(y) in _SIGNED and (dt := _scalar_int_result(frame, op)) is not None
            and dt.itemsize <= 4):  # (below 64 bits: the mask is what numpy's int64 `&` gives)
        mask = (1 << (8 * dt.itemsize)) - 1
        x, y = int(x) & mask, int(y) & mask
        if y == 0:
            raise InterpretError(f"{where(op)}{op.name}: division by zero")
        return [_wrapped(dt, x // y if op.name == "arith.divui" else x % y)]
    bits = np.iinfo(dtype_of(op.results[0].type)).bits if dtype_of(op.results[0].type).kind != "b" else 1
    mask = (1 << bits) - 1
    x, y = _i(a[0]) & mask, _i(a[1]) & mask
    _check_divisor(op, y)
    return [_out(op, x // y if op.name == "arith.divui" else x % y)]


@impl("arith.negf")
def _negf(frame, op, a):
    return [_out(op, -_f(a[0]))]


_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


_CMPI_PY = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "slt": lambda x, y: x < y,
            "sle": lambda x, y: x <= y, "sgt": lambda x, y: x > y, "sge": lambda x, y: x >= y}


@impl("arith.cmpi")
def _cmpi(frame, op, a):
    pred = _CMPI[op.predicate.value.data]
    x, y = a
    if type(x) in _SIGNED and type(y) in _SIGNED and pred in _CMPI_PY and not isinstance(op.results[0].type,
                                                                                             TensorType):
        return [np.bool_(_CMPI_PY[pred](int(x), int(y)))]  # what `_out` makes of numpy's comparison
    x, y = _i(x), _i(y)
    if pred[0] == "u":
        bits = 1 if dtype_of(op.lhs.type).kind == "b" else np.iinfo(dtype_of(op.lhs.type)).bits
        x, y = x & ((1 << bits) - 1), y & ((1 << bits) - 1)
        pred = "s" + pred[1:]
    fn = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
          "sgt": np.greater, "sge": np.greater_equal}[pred]
    return [_out(op, fn(x, y))]


_CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
         "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]


@impl("arith.cmpf")
def _cmpf(frame, op, a):
    pred = _CMPF[op.predicate.value.data]
    x, y = _f(a[0]), _f(a[1])
    nan = np.isnan(x) | np.isnan(y)
    if pred in ("false", "true"):
        return [_out(op, np.full(np.broadcast(x, y).shape, pred == "true"))]
    if pred == "ord":
        return [_out(op, ~nan)]
    if pred == "uno":
        return [_out(op, nan)]
    base = {"eq": np.equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less,
            "le": np.less_equal, "ne": np.not_equal}[pred[1:]]
    with np.errstate(invalid="ignore"):
        r = base(x, y)
    return [_out(op, (r & ~nan) if pred[0] == "o" else (r | nan))]


@impl("arith.select")
def _select(frame, op, a):
    c, x, y = a
    if isinstance(x, np.ndarray) or isinstance(c, np.ndarray):
        return [np.where(c, x, y).astype(dtype_of(op.results[0].type))]
    return [x if bool(c) else y]


@impl("arith.extf", "arith.truncf", "arith.sitofp")
def _to_float(frame, op, a):
    return [_out(op, _f(a[0]) if op.name != "arith.sitofp" else _i(a[0]))]


@impl("arith.uitofp")
def _uitofp(frame, op, a):
    dt = dtype_of(op.input.type)
    bits = 1 if dt.kind == "b" else np.iinfo(dt).bits
    return [_out(op, (_i(a[0]) & ((1 << bits) - 1)).astype(np.float64))]


@impl("arith.fptosi", "arith.fptoui")
def _to_int(frame, op, a):
    x = _f(a[0])
    if np.any(~np.isfinite(x)):
        raise InterpretError(f"{where(op)}{op.name} of a non-finite value")
    return [_out(op, np.trunc(x).astype(np.int64))]


@impl("arith.extsi", "arith.trunci", "arith.index_cast", "arith.index_castui")
def _int_cast(frame, op, a):
    if type(a[0]) in _SIGNED and (dt := _scalar_int_result(frame, op)) is not None:
        return [_wrapped(dt, int(a[0]))]
    return [_out(op, _i(a[0]))]


@impl("arith.extui")
def _extui(frame, op, a):
    dt = dtype_of(op.operands[0].type)
    bits = 1 if dt.kind == "b" else np.iinfo(dt).bits
    return [_out(op, _i(a[0]) & ((1 << bits) - 1))]


def _unary_math(fn):
    def run(frame, op, a):
        token = quiet()
        try:
            return [_out(op, fn(_f(a[0])))]
        finally:
            unquiet(token)

    return run


for _name, _fn in {
    "math.exp": np.exp, "math.log": np.log, "math.log2": np.log2,
    "math.sqrt": np.sqrt, "math.rsqrt": lambda x: 1.0 / np.sqrt(x), "math.absf": np.abs,
    "math.tanh": np.tanh, "math.sin": np.sin, "math.cos": np.cos, "math.floor": np.floor,
    "math.ceil": np.ceil, "arith.absf": np.abs,
}.items():
    impl(_name)(_unary_math(_fn))


@impl("math.exp2")
def _exp2(frame, op, a):
    """2^x; the column blocks ws-exp2-split marked as the lowering computes them there (a
    polynomial in float32, wsdialects/transforms/exp2_split.py)."""
    out = _unary_math(np.exp2)(frame, op, a)[0]
    if "ws.exp2_fma" in op.attributes:
        from wsdialects.transforms.exp2_split import BLOCK, exp2_fma_model, read_mark

        blocks, degree = read_mark(op)
        cols = [c for b in sorted(blocks) for c in range(b * BLOCK, (b + 1) * BLOCK)]
        out = np.array(out, dtype=np.float32)
        out[..., cols] = exp2_fma_model(np.asarray(a[0])[..., cols], degree)
    return [out]


@impl("math.absi")
def _absi(frame, op, a):
    return [_out(op, np.abs(_i(a[0])))]


@impl("math.fma")
def _fma(frame, op, a):
    return [_out(op, _f(a[0]) * _f(a[1]) + _f(a[2]))]
