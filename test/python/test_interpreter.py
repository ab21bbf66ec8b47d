"""The interpreter against numpy: reference kernels, hand-written aref/warp_group
IR (interleavings, deadlock, use after release), argument checks, arith semantics."""

import numpy as np
import pytest

import wsdialects
from conftest import KERNELS_HERE, attention_reference, gemm_reference, rel_err


def run_gemm(module, rng, M, N, K, dtype=np.float16, **kw):
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((N, K)).astype(dtype)
    c = np.zeros((M, N), np.float16)
    grid = -(-M // 128) * -(-N // 256)
    wsdialects.interpret(module, "matmul", grid, [a, b, c, M, N, K, N], **kw)
    return c, gemm_reference(a, b)


@pytest.mark.parametrize("M,N,K", [(200, 300, 100), (128, 256, 64), (77, 513, 130)])
def test_gemm_matches_numpy(shared, rng, M, N, K):
    module = wsdialects.parse_file(shared / "kernels" / "gemm.mlir")
    c, ref = run_gemm(module, rng, M, N, K)
    assert rel_err(c, ref) < 1e-2


def test_gemm_writes_nothing_outside_the_matrix(shared, rng):
    module = wsdialects.parse_file(shared / "kernels" / "gemm.mlir")
    M, N, K = 130, 260, 70
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    # C has a wider row stride; the columns beyond N must stay untouched.
    c = np.full((M, N + 8), 7.0, np.float16)
    wsdialects.interpret(module, "matmul", 4, [a, b, c, M, N, K, N + 8])
    assert np.all(c[:, N:] == 7.0)
    assert rel_err(c[:, :N], gemm_reference(a, b)) < 1e-2


def run_attention(module, rng, L=384, H=2, D=128, **kw):
    q, k, v = (rng.standard_normal((H * L, D)).astype(np.float16) for _ in range(3))
    o = np.zeros((H * L, D), np.float16)
    scale = 1.0 / np.sqrt(D)
    wsdialects.interpret(module, "attention", (L // 128, H), [q, k, v, o, L, scale], **kw)
    return o, attention_reference(q, k, v, H, L, scale)


def test_attention_matches_numpy(shared, rng):
    module = wsdialects.parse_file(shared / "kernels" / "attention.mlir")
    o, ref = run_attention(module, rng)
    assert rel_err(o, ref) < 1e-2


# --- aref + warp_group, hand-written -------------------------------------------

WS_COPY = (KERNELS_HERE / "ws_copy.mlir").read_text()
CONSUMED = "          aref.consumed %ring[%k] : !aref.ring<tensor<16x32xf32>, depth = 2>\n"
USE = "          %d = arith.addf %t, %t : tensor<16x32xf32>\n"


def run_copy(text, n=5, seed=None):
    x = np.random.default_rng(1).random((16 * n, 32)).astype(np.float32)
    y = np.zeros_like(x)
    wsdialects.interpret(wsdialects.parse(text, "ws_copy.mlir"), "ws_copy", 1, [x, y, n], seed=seed)
    return x, y


@pytest.mark.parametrize("seed", [None, 0, 1, 2, 3, 4, 5, 6, 7])
def test_partitions_any_interleaving(seed):
    x, y = run_copy(WS_COPY, seed=seed)
    assert np.array_equal(y, 2 * x)


def test_deadlock_names_the_aref_and_slot():
    assert CONSUMED in WS_COPY
    with pytest.raises(wsdialects.Deadlock) as e:
        run_copy(WS_COPY.replace(CONSUMED, ""))
    msg = str(e.value)
    assert "aref %ring slot 0" in msg and "to be empty" in msg and "to be full" in msg


def test_read_after_consumed_is_reported():
    swapped = WS_COPY.replace(USE + CONSUMED, CONSUMED + USE)
    assert swapped != WS_COPY
    with pytest.raises(wsdialects.InterpretError, match=r"ws_copy.mlir:\d+:\d+: arith.addf reads a tile of aref %ring slot 0 \(position 0\) after it was consumed"):
        run_copy(swapped)


def test_consumed_without_get_is_reported():
    text = WS_COPY.replace(
        "          %t = aref.get %ring[%k] : !aref.ring<tensor<16x32xf32>, depth = 2>\n",
        "          %t = arith.constant dense<1.0> : tensor<16x32xf32>\n",
    )
    with pytest.raises(wsdialects.InterpretError, match="without a matching get"):
        run_copy(text)


# --- arguments -----------------------------------------------------------------

def test_argument_checks(shared):
    module = wsdialects.parse_file(shared / "kernels" / "gemm.mlir")
    a = np.zeros((128, 64), np.float16)
    b = np.zeros((256, 64), np.float16)
    c = np.zeros((128, 256), np.float16)
    with pytest.raises(TypeError, match="takes 7 arguments, got 6"):
        wsdialects.interpret(module, "matmul", 1, [a, b, c, 1, 1, 1])
    with pytest.raises(TypeError, match="expected dtype float16, got float32"):
        wsdialects.interpret(module, "matmul", 1, [a.astype(np.float32), b, c, 1, 1, 1, 1])
    with pytest.raises(TypeError, match="expected a 2-D array"):
        wsdialects.interpret(module, "matmul", 1, [a.reshape(-1), b, c, 1, 1, 1, 1])
    with pytest.raises(TypeError, match="C-contiguous"):
        wsdialects.interpret(module, "matmul", 1, [a, b, np.asfortranarray(c), 1, 1, 1, 1])
    with pytest.raises(wsdialects.InterpretError, match="no kernel @nope"):
        wsdialects.interpret(module, "nope", 1, [])


# --- scalar and tensor arithmetic semantics -------------------------------------

ARITH = """
func.func @k(%out: !tile.ptr<i32>, %fout: !tile.ptr<f32>, %a: i32, %b: i32) attributes {tile.kernel} {
  %r = tile.make_range 0 to 8 : tensor<8xi32>
  %base = tile.splat %out : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>>
  %p = tile.addptr %base, %r : tensor<8x!tile.ptr<i32>>, tensor<8xi32>
  %q = arith.divsi %a, %b : i32
  %m = arith.remsi %a, %b : i32
  %c = arith.ceildivsi %a, %b : i32
  %qs = tile.splat %q : i32 -> tensor<8xi32>
  %ms = tile.splat %m : i32 -> tensor<8xi32>
  %cs = tile.splat %c : i32 -> tensor<8xi32>
  %three = arith.constant dense<3> : tensor<8xi32>
  %lt = arith.cmpi slt, %r, %three : tensor<8xi32>
  %ge6 = arith.cmpi sge, %r, %three : tensor<8xi32>
  %v = arith.select %lt, %qs, %ms : tensor<8xi1>, tensor<8xi32>
  %seven = arith.constant dense<6> : tensor<8xi32>
  %hi = arith.cmpi sge, %r, %seven : tensor<8xi32>
  %v2 = arith.select %hi, %cs, %v : tensor<8xi1>, tensor<8xi32>
  tile.store %p, %v2 : tensor<8x!tile.ptr<i32>>
  %f = arith.sitofp %r : tensor<8xi32> to tensor<8xf32>
  %half = arith.constant dense<0.5> : tensor<8xf32>
  %g = arith.mulf %f, %half : tensor<8xf32>
  %gi = arith.fptosi %g : tensor<8xf32> to tensor<8xi32>
  %gf = arith.sitofp %gi : tensor<8xi32> to tensor<8xf32>
  %fb = tile.splat %fout : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %fp = tile.addptr %fb, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %fp, %gf, %ge6 : tensor<8x!tile.ptr<f32>>
  func.return
}
"""


@pytest.mark.parametrize("a,b", [(-7, 2), (7, -2), (7, 2), (-8, 2), (5, 7)])
def test_integer_division_follows_mlir(a, b):
    out = np.zeros(8, np.int32)
    fout = np.full(8, -1.0, np.float32)
    wsdialects.interpret(wsdialects.parse(ARITH), "k", 1, [out, fout, a, b])
    trunc = int(a / b)
    ceil = -((-a) // b)
    assert list(out) == [trunc] * 3 + [a - trunc * b] * 3 + [ceil] * 2
    assert list(fout[:3]) == [-1.0] * 3  # masked off
    assert list(fout[3:]) == [1.0, 2.0, 2.0, 3.0, 3.0]


def test_division_by_zero_is_reported():
    with pytest.raises(wsdialects.InterpretError, match="division by zero"):
        wsdialects.interpret(wsdialects.parse(ARITH), "k", 1,
                             [np.zeros(8, np.int32), np.zeros(8, np.float32), 1, 0])


def test_out_of_bounds_pointer_access_is_reported():
    with pytest.raises(wsdialects.InterpretError, match=r"out-of-bounds access at element 4 of a 4-element array"):
        wsdialects.interpret(wsdialects.parse(ARITH), "k", 1,
                             [np.zeros(4, np.int32), np.zeros(8, np.float32), 1, 1])


def test_tma_out_of_bounds_reads_zero_and_drops_writes():
    """A load's box may start before the tensor and run past it (zeros there); a store's box may
    run past the end (dropped) but not start before the tensor (an error, as on the GPU)."""
    text = """
    func.func @k(%x: !tile.desc<tensor<4x4xf32>>, %y: !tile.desc<tensor<4x4xf32>>, %i: i32, %j: i32, %k: i32) attributes {tile.kernel} {
      %t = tile.desc_load %x[%i, %j] : !tile.desc<tensor<4x4xf32>> -> tensor<4x4xf32>
      %one = arith.constant dense<1.0> : tensor<4x4xf32>
      %u = arith.addf %t, %one : tensor<4x4xf32>
      tile.desc_store %y[%i, %k], %u : !tile.desc<tensor<4x4xf32>>
      func.return
    }"""
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    y = np.zeros((5, 6), np.float32)
    wsdialects.interpret(wsdialects.parse(text), "k", 1, [x, y, 3, -2, 3])
    want = np.zeros((5, 6), np.float32)
    want[3:5, 3:5] = 1  # the load's columns -2 and -1: zeros, plus one
    want[3:5, 5] = x[3:5, 0] + 1
    assert np.array_equal(y, want)
    with pytest.raises(Exception, match="a TMA store's coordinates must be >= 0"):
        wsdialects.interpret(wsdialects.parse(text), "k", 1, [x, y, 3, -2, -2])


def test_fp8_dot_rounds_inputs_and_accumulates_in_fp32():
    import ml_dtypes

    text = """
    func.func @k(%a: !tile.desc<tensor<16x32xf8E4M3FN>>, %b: !tile.desc<tensor<32x16xf8E4M3FN>>, %c: !tile.desc<tensor<16x16xf32>>) attributes {tile.kernel} {
      %c0 = arith.constant 0 : i32
      %x = tile.desc_load %a[%c0, %c0] : !tile.desc<tensor<16x32xf8E4M3FN>> -> tensor<16x32xf8E4M3FN>
      %y = tile.desc_load %b[%c0, %c0] : !tile.desc<tensor<32x16xf8E4M3FN>> -> tensor<32x16xf8E4M3FN>
      %z = arith.constant dense<0.0> : tensor<16x16xf32>
      %d = tile.dot %x, %y, %z : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
      tile.desc_store %c[%c0, %c0], %d : !tile.desc<tensor<16x16xf32>>
      func.return
    }"""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 32)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.standard_normal((32, 16)).astype(ml_dtypes.float8_e4m3fn)
    c = np.zeros((16, 16), np.float32)
    wsdialects.interpret(wsdialects.parse(text), "k", 1, [a, b, c])
    assert np.allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6, atol=1e-6)


def test_causal_attention_matches_numpy(rng):
    from cases import INPUTS

    module = wsdialects.parse_file(INPUTS / "causal_attention.mlir")
    L, H, D = 384, 2, 128
    q, k, v = (rng.standard_normal((H * L, D)).astype(np.float16) for _ in range(3))
    o = np.zeros((H * L, D), np.float16)
    scale = 1.0 / np.sqrt(D)
    wsdialects.interpret(module, "causal_attention", (L // 128, H), [q, k, v, o, L, scale])
    assert rel_err(o, attention_reference(q, k, v, H, L, scale, causal=True)) < 1e-2


def _arith(op, a, b):
    """The interpreter's implementation of the binary arith `op` on `a`, `b` (no kernel around it)."""
    from wsdialects.interpreter import ops_arith  # noqa: F401 - registers the arith implementations
    from wsdialects.interpreter.core import IMPLS

    (got,) = IMPLS[op.name](None, op, [a, b])
    return got


@pytest.mark.parametrize("elt", ["f16", "f32", "bf16"])
def test_maximumf_minimumf_order_the_zeros(elt):
    """MLIR's arith.maximumf / minimumf (LLVM's llvm.maximum / minimum) take -0.0 < +0.0, in
    either operand order (numpy's maximum returns one zero of a pair, which one by dtype and
    order); a NaN still wins, other values are numpy's."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import TensorType, bf16, f16, f32
    from xdsl.ir import Block

    from wsdialects.interpreter.values import dtype_of

    t = TensorType({"f16": f16, "f32": f32, "bf16": bf16}[elt], [7])
    dt = dtype_of(t)
    x = np.array([-0.0, 0.0, 0.0, -0.0, np.nan, 1.5, -2.0], dt)
    y = np.array([0.0, -0.0, 0.0, -0.0, 0.0, -3.0, 4.0], dt)
    operands = Block(arg_types=[t, t]).args
    for make, want in [(arith.MaximumfOp, [0.0, 0.0, 0.0, -0.0, np.nan, 1.5, 4.0]),
                       (arith.MinimumfOp, [-0.0, -0.0, 0.0, -0.0, np.nan, -3.0, -2.0])]:
        op = make(*operands)
        for a, b in [(x, y), (y, x)]:
            got = _arith(op, a, b)
            assert got.dtype == dt
            expected = np.array(want, dt)
            assert np.array_equal(got, expected, equal_nan=True)
            assert np.array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("name,x,y", [("arith.subf", np.inf, np.inf), ("arith.addf", np.inf, -np.inf),
                                      ("arith.divf", 0.0, 0.0), ("arith.mulf", np.inf, 0.0),
                                      ("arith.maximumf", np.nan, 1.0)])
def test_float_ops_give_nan_silently(name, x, y):
    """inf - inf, 0 / 0, inf * 0, a NaN operand: NaN, as the GPU computes it, without numpy's
    RuntimeWarning (the interpreter printed 'invalid value encountered in subtract')."""
    import warnings

    from xdsl.dialects import arith
    from xdsl.dialects.builtin import TensorType, f32
    from xdsl.ir import Block

    t = TensorType(f32, [2])
    ops = {o.name: o for o in (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp)}
    op = ops[name](*Block(arg_types=[t, t]).args)
    a, b = np.full(2, x, np.float32), np.full(2, y, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _arith(op, a, b)
    assert got.dtype == np.float32 and np.isnan(got).all()
