"""Semantics of `arith` and `math` on scalars and tensors (MLIR's definitions).

Float results are computed in float64 and rounded once to the result type (exact
for +, -, *, /, sqrt); integers wrap to their width; `divsi` truncates toward
zero, `ceildivsi` rounds up, division by zero is reported.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, TensorType

from wsdialects.interpreter.core import impl, where
from wsdialects.interpreter.values import InterpretError, dtype_of, is_float_dtype


def _out(op, value):
    """`value` as the result type of `op` (array for tensors, numpy scalar otherwise)."""
    t = op.results[0].type
    dt = dtype_of(t)
    with np.errstate(all="ignore"):
        if isinstance(t, TensorType):
            return np.asarray(value).astype(dt)
        if dt.kind in "iu" and np.asarray(value).dtype.kind == "f":
            return dt.type(int(value))
        return np.asarray(value).astype(dt)[()]


def _f(x):
    return np.asarray(x).astype(np.float64)


def _i(x):
    return np.asarray(x).astype(np.int64)


@impl("arith.constant")
def _constant(frame, op, _):
    cache = frame.interp.constants  # by id(op): xDSL hashes an op in Python
    key = id(op)
    if key not in cache:
        v = op.value
        t = op.results[0].type
        if isinstance(v, DenseIntOrFPElementsAttr):
            arr = np.array(v.get_values(), dtype=np.float64 if is_float_dtype(dtype_of(t)) else np.int64)
            shape = tuple(t.get_shape())
            arr = np.broadcast_to(arr, shape) if arr.size == 1 else arr.reshape(shape)
            cache[key] = _out(op, arr)
        elif isinstance(v, IntegerAttr):
            cache[key] = _out(op, v.value.data)
        elif isinstance(v, FloatAttr):
            cache[key] = _out(op, v.value.data)
        else:
            raise InterpretError(f"{where(op)}unsupported constant {v}")
    return [cache[key]]


def _binary_float(fn):
    return lambda frame, op, a: [_out(op, fn(_f(a[0]), _f(a[1])))]


def _binary_int(fn):
    return lambda frame, op, a: [_out(op, fn(_i(a[0]), _i(a[1])))]


def _check_divisor(op, b):
    if np.any(np.asarray(b) == 0):
        raise InterpretError(f"{where(op)}{op.name}: division by zero")


def _trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) ^ (b < 0), -q, q)


for _name, _fn in {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.divide, "arith.maximumf": np.maximum, "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin, "arith.remf": np.fmod,
}.items():
    impl(_name)(_binary_float(_fn))

for _name, _fn in {
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.maxsi": np.maximum, "arith.minsi": np.minimum,
    "arith.shli": np.left_shift, "arith.shrsi": np.right_shift,
}.items():
    impl(_name)(_binary_int(_fn))


@impl("arith.andi", "arith.ori", "arith.xori")
def _bitwise(frame, op, a):
    fn = {"arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor}[op.name]
    dt = dtype_of(op.results[0].type)
    return [_out(op, fn(np.asarray(a[0]).astype(dt), np.asarray(a[1]).astype(dt)))]


@impl("arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi")
def _divide(frame, op, a):
    x, y = _i(a[0]), _i(a[1])
    _check_divisor(op, y)
    q = _trunc_div(x, y)
    if op.name == "arith.remsi":
        return [_out(op, x - q * y)]
    if op.name == "arith.ceildivsi":
        q = q + (((x - q * y) != 0) & ((x > 0) == (y > 0)))
    elif op.name == "arith.floordivsi":
        q = np.floor_divide(x, y)
    return [_out(op, q)]


@impl("arith.divui", "arith.remui")
def _divide_unsigned(frame, op, a):
    bits = np.iinfo(dtype_of(op.results[0].type)).bits if dtype_of(op.results[0].type).kind != "b" else 1
    mask = (1 << bits) - 1
    x, y = _i(a[0]) & mask, _i(a[1]) & mask
    _check_divisor(op, y)
    return [_out(op, x // y if op.name == "arith.divui" else x % y)]


@impl("arith.negf")
def _negf(frame, op, a):
    return [_out(op, -_f(a[0]))]


_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


@impl("arith.cmpi")
def _cmpi(frame, op, a):
    pred = _CMPI[op.predicate.value.data]
    x, y = _i(a[0]), _i(a[1])
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
    return [_out(op, _i(a[0]))]


@impl("arith.extui")
def _extui(frame, op, a):
    dt = dtype_of(op.operands[0].type)
    bits = 1 if dt.kind == "b" else np.iinfo(dt).bits
    return [_out(op, _i(a[0]) & ((1 << bits) - 1))]


def _unary_math(fn):
    def run(frame, op, a):
        with np.errstate(all="ignore"):
            return [_out(op, fn(_f(a[0])))]

    return run


for _name, _fn in {
    "math.exp": np.exp, "math.exp2": np.exp2, "math.log": np.log, "math.log2": np.log2,
    "math.sqrt": np.sqrt, "math.rsqrt": lambda x: 1.0 / np.sqrt(x), "math.absf": np.abs,
    "math.tanh": np.tanh, "math.sin": np.sin, "math.cos": np.cos, "math.floor": np.floor,
    "math.ceil": np.ceil, "arith.absf": np.abs,
}.items():
    impl(_name)(_unary_math(_fn))


@impl("math.absi")
def _absi(frame, op, a):
    return [_out(op, np.abs(_i(a[0])))]


@impl("math.fma")
def _fma(frame, op, a):
    return [_out(op, _f(a[0]) * _f(a[1]) + _f(a[2]))]
