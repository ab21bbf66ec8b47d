"""What a kernel's scalar and array parameters take from Python, in the interpreter and the GPU
launcher alike (wsdialects/scalar_args.py): a float for an `i32` is refused, not truncated; a
bool is not an integer; numpy integer scalars are integers; a bf16 array must be an
ml_dtypes.bfloat16 array, and the error says so. The launcher's packing is checked without a GPU
(`pack_scalar`); test/gpu/test_hopper_gpu.py checks the launch path on one."""

import ctypes

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from wsdialects.runtime.launch import pack_scalar

# out[0] = n + 1, fout[0] = x * 2: one i32 and one f32 parameter
KERNEL = """
func.func @k(%out: !tile.ptr<i32>, %fout: !tile.ptr<f32>, %n: i32, %x: f32) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %m = arith.addi %n, %c1 : i32
  %two = arith.constant 2.0 : f32
  %y = arith.mulf %x, %two : f32
  %r = tile.make_range 0 to 1 : tensor<1xi32>
  %pb = tile.splat %out : !tile.ptr<i32> -> tensor<1x!tile.ptr<i32>>
  %p = tile.addptr %pb, %r : tensor<1x!tile.ptr<i32>>, tensor<1xi32>
  %mv = tile.splat %m : i32 -> tensor<1xi32>
  tile.store %p, %mv : tensor<1x!tile.ptr<i32>>
  %fb = tile.splat %fout : !tile.ptr<f32> -> tensor<1x!tile.ptr<f32>>
  %fp = tile.addptr %fb, %r : tensor<1x!tile.ptr<f32>>, tensor<1xi32>
  %yv = tile.splat %y : f32 -> tensor<1xf32>
  tile.store %fp, %yv : tensor<1x!tile.ptr<f32>>
  func.return
}
"""


def run(n, x):
    out, fout = np.zeros(1, np.int32), np.zeros(1, np.float32)
    wsdialects.interpret(wsdialects.parse(KERNEL), "k", 1, [out, fout, n, x])
    return int(out[0]), float(fout[0])


@pytest.mark.parametrize("n", [8.0, 8.5, np.float32(8.0), np.float64(3.0)])
def test_interpreter_refuses_a_float_for_an_integer(n):
    with pytest.raises(TypeError, match=r"argument 2 \(%n: i32\): expected an int for i32, got a (numpy )?float"
                                        r"(32|64)? \(8\.0|8\.5|3\.0\): a float is not truncated"):
        run(n, 1.0)


@pytest.mark.parametrize("n", [True, np.bool_(False)])
def test_interpreter_refuses_a_bool_for_an_integer(n):
    with pytest.raises(TypeError, match=r"argument 2 \(%n: i32\): expected an int for i32, got a (numpy )?bool"):
        run(n, 1.0)


def test_interpreter_refuses_a_bool_or_string_for_a_float():
    with pytest.raises(TypeError, match=r"argument 3 \(%x: f32\): expected a number for f32, got a bool \(True\)"):
        run(1, True)
    with pytest.raises(TypeError, match=r"argument 3 \(%x: f32\): expected a number for f32, got a str"):
        run(1, "1.5")


@pytest.mark.parametrize("n", [7, np.int32(7), np.int64(7), np.uint8(7)])
def test_interpreter_takes_integers_and_numpy_integers(n):
    assert run(n, 1.5) == (8, 3.0)


@pytest.mark.parametrize("x", [2, 1.5, np.float32(1.5), np.int64(2), np.float16(1.5)])
def test_interpreter_takes_numbers_for_a_float(x):
    assert run(1, x) == (2, float(x) * 2)


def test_interpreter_names_ml_dtypes_for_bf16_arrays():
    text = KERNEL.replace("!tile.ptr<f32>", "!tile.ptr<bf16>").replace("%x: f32", "%x: bf16") \
        .replace("2.0 : f32", "2.0 : bf16").replace("f32", "bf16")
    module = wsdialects.parse(text)
    out = np.zeros(1, np.int32)
    with pytest.raises(TypeError, match=r"argument 1 \(%fout: !tile.ptr<bf16>\): expected dtype bfloat16, got "
                                        r"float32 \(numpy has no bfloat16: `import ml_dtypes` and pass "
                                        r"`x.astype\(ml_dtypes.bfloat16\)`\)"):
        wsdialects.interpret(module, "k", 1, [out, np.zeros(1, np.float32), 1, 1.0])
    fout = np.zeros(1, ml_dtypes.bfloat16)
    wsdialects.interpret(module, "k", 1, [out, fout, 1, 1.5])
    assert float(fout[0]) == 3.0
    # a dtype numpy has: no such hint
    with pytest.raises(TypeError, match=r"expected dtype int32, got int64$"):
        wsdialects.interpret(module, "k", 1, [np.zeros(1, np.int64), fout, 1, 1.0])


def test_launcher_packs_as_the_interpreter_checks():
    assert pack_scalar("i32", 7) == (7, ctypes.c_int32)
    assert pack_scalar("i32", np.int32(7)) == (7, ctypes.c_int32)
    assert type(pack_scalar("i64", np.int64(7))[0]) is int  # a Python int for ctypes
    assert pack_scalar("f32", 2) == (2.0, ctypes.c_float)
    assert pack_scalar("f64", np.float32(0.5)) == (0.5, ctypes.c_double)
    for bad, why in [(8.0, r"expected an int for i32, got a float \(8\.0\): a float is not truncated"),
                     (np.float32(8), r"got a numpy float32 \(8\.0\)"),
                     (True, r"expected an int for i32, got a bool \(True\): a bool is an i1 argument"),
                     ("8", r"expected an int for i32, got a str"),
                     (1 << 32, r"4294967296 does not fit i32")]:
        with pytest.raises(ValueError, match=why):
            pack_scalar("i32", bad)
    with pytest.raises(ValueError, match=r"expected a number for f32, got a bool"):
        pack_scalar("f32", False)
    with pytest.raises(ValueError, match="scalar arguments of type i1 are not supported by the launcher"):
        pack_scalar("i1", True)
