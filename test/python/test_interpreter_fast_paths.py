"""The interpreter's shortcuts give what the plain numpy calls give: `quiet`/`unquiet` are
`np.errstate(all="ignore")`, a dense constant read from its packed bytes is `get_values()`'s
array, a TMA box wholly inside the array skips zero-filling, `mma_product` sums in place, and a
constant's value computed once per run is the value every execution computes."""

import numpy as np
import pytest
from xdsl.dialects.builtin import (DenseIntOrFPElementsAttr, Float16Type, Float32Type, Float64Type, IntegerType,
                                   TensorType)

import wsdialects
from wsdialects.interpreter import values
from wsdialects.interpreter.ops_arith import _dense_values
from wsdialects.interpreter.ops_tile import _box, _window
from wsdialects.interpreter.values import Descriptor, mma_product, quiet, unquiet


def test_quiet_is_errstate_ignore():
    if int(np.__version__.split(".")[0]) >= 2:
        assert values._EXTOBJ is not None, "numpy 2 keeps its error state in a context variable: the fast path is on"
    with np.errstate(divide="raise", over="warn"):
        outer = np.geterr()
        with np.errstate(all="ignore"):
            expected = np.geterr()
        for _ in range(2):  # the second time from the kept settings
            token = quiet()
            try:
                assert np.geterr() == expected
                assert np.float32(1) / np.float32(0) == np.inf  # no FloatingPointError
            finally:
                unquiet(token)
            assert np.geterr() == outer
        with pytest.raises(FloatingPointError):
            np.float32(1) / np.float32(0)


@pytest.mark.parametrize("elt,dtype", [(Float16Type(), np.float16), (Float32Type(), np.float32),
                                       (Float64Type(), np.float64), (IntegerType(8), np.int8),
                                       (IntegerType(16), np.int16), (IntegerType(32), np.int32),
                                       (IntegerType(64), np.int64)])
def test_dense_values_from_packed_bytes(elt, dtype):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        xs = (rng.standard_normal(24) * 100).astype(dtype).tolist() + [0.0, -0.0, float("inf"), float("-inf")]
        wide = np.float64
    else:
        info = np.iinfo(dtype)
        xs = rng.integers(info.min, info.max, 26, endpoint=True).tolist() + [info.min, info.max]
        wide = np.int64
    v = DenseIntOrFPElementsAttr.from_list(TensorType(elt, [4, 7]), xs)
    fast = _dense_values(v, wide)
    plain = np.array(v.get_values(), dtype=wide)
    assert fast is not None and fast.dtype == plain.dtype
    np.testing.assert_array_equal(fast, plain)
    assert np.array_equal(np.signbit(fast), np.signbit(plain))
    other = np.int64 if wide is np.float64 else np.float64  # a float constant of an integer result: plain path
    assert _dense_values(v, other) is None


def test_dense_values_leave_nan_to_get_values():
    v = DenseIntOrFPElementsAttr.from_list(TensorType(Float32Type(), [2]), [1.0, float("nan")])
    assert _dense_values(v, np.float64) is None


def test_box_is_zeros_then_window():
    rng = np.random.default_rng(3)
    for shape, block in [((40, 24), (16, 8)), ((3, 40, 24), (16, 8)), ((5, 9), (8, 16))]:
        a = rng.standard_normal(shape).astype(np.float16)
        desc = Descriptor(a, block)
        for _ in range(60):
            idx = [int(rng.integers(-b - 2, s + 2)) for s, b in zip(shape, (1,) * (len(shape) - len(block)) + block)]
            plain = np.zeros(block, a.dtype)
            w = _window(desc, idx)
            if w is not None:
                plain[w[1]] = a[w[0]]
            np.testing.assert_array_equal(_box(desc, idx), plain)


def test_mma_product_in_place_sum():
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((64, 32)).astype(np.float16), rng.standard_normal((32, 48)).astype(np.float16)
    for acc in (rng.standard_normal((64, 48)).astype(np.float32), rng.standard_normal((64, 48)),
                np.float32(0.5), rng.standard_normal((64, 48)).astype(np.float32).T.copy().T):
        plain = (x.astype(np.float64) @ y.astype(np.float64) + np.asarray(acc, dtype=np.float64)).astype(np.float32)
        np.testing.assert_array_equal(mma_product(x, y, acc), plain)


def test_constant_computed_once_per_run_is_every_executions_value():
    """A loop that adds a tensor constant to an accumulator, run twice on one module: the value kept
    for each constant (the loop's bounds and step, the tensor) is the constant's, in every
    iteration and in the second run (the output is the 3-fold sum both times)."""
    text = """
"func.func"() <{function_type = (!tile.ptr<f32>) -> (), sym_name = "k"}> ({
^bb0(%p: !tile.ptr<f32>):
  %c = "arith.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %z = "arith.constant"() <{value = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %lo = "arith.constant"() <{value = 0 : i32}> : () -> i32
  %hi = "arith.constant"() <{value = 3 : i32}> : () -> i32
  %one = "arith.constant"() <{value = 1 : i32}> : () -> i32
  %s = "scf.for"(%lo, %hi, %one, %z) ({
  ^bb1(%i: i32, %acc: tensor<4xf32>):
    %n = "arith.addf"(%acc, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%n) : (tensor<4xf32>) -> ()
  }) : (i32, i32, i32, tensor<4xf32>) -> tensor<4xf32>
  %r = "tile.make_range"() <{start = 0 : i32, end = 4 : i32}> : () -> tensor<4xi32>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<4x!tile.ptr<f32>>
  %pp = "tile.addptr"(%ps, %r) : (tensor<4x!tile.ptr<f32>>, tensor<4xi32>) -> tensor<4x!tile.ptr<f32>>
  "tile.store"(%pp, %s) : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}) {tile.kernel} : () -> ()
"""
    m = wsdialects.parse(text)
    for _ in range(2):
        out = np.zeros(4, np.float32)
        wsdialects.interpret(m, "k", grid=(1,), args=[out])
        np.testing.assert_array_equal(out, np.array([3.0, 6.0, 9.0, 12.0], np.float32))
