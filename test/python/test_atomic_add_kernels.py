"""tile.atomic_add kernels interpreted on random inputs as imported, after ws-specialize and
after ws-hopper (and the hand-written forms of test/transforms/Inputs/atomics.mlir before and
after ws-hopper): the same outputs, bit for bit (the interpreter runs programs one at a time, so
the adds of one element come in the same order), and close to numpy. C and `out` start
non-zero, so an add that became a store, or an element added twice (by two warp groups, or
by the four lanes of a quad), shows.

Split-K GEMM and split-N row sum: examples/triton/gemm_splitk.py, TTIR checked in."""

from pathlib import Path

import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.triton.launch import expand

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test" / "Inputs" / "triton"
ATOMICS = ROOT / "test" / "transforms" / "Inputs" / "atomics.mlir"
PIPELINES = ["", "ws-specialize", "ws-hopper", "ws-hopper{cooperative=2}"]

SPLITK_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", **{n: "i32" for n in (
    "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")}}


def cdiv(a, b):
    return -(-a // b)


def _splitk(module, a, b, c0, block, split):
    M, K = a.shape
    N = b.shape[1]
    c = c0.copy()
    args = expand(dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K, stride_am=K, stride_ak=1, stride_bk=N,
                       stride_bn=1, stride_cm=N, stride_cn=1), SPLITK_SIG)
    wsdialects.interpret(module, "gemm_splitk_kernel", (cdiv(M, block[0]), cdiv(N, block[1]), split), args, seed=7)
    return c


# M, N, K cut the last tiles; K = 200 with BLOCK_K = 32 and 3 slices: 7 K tiles, slices of 3, 3, 1.
@pytest.mark.parametrize("name,block,split,shape", [
    ("gemm_splitk_f16_64x64x32_s3", (64, 64), 3, (96, 80, 200)),
    ("gemm_splitk_f16_128x128x64_s4", (128, 128), 4, (130, 136, 264)),
])
@pytest.mark.parametrize("pipeline", PIPELINES)
def test_gemm_splitk(name, block, split, shape, pipeline, rng):
    M, N, K = shape
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c0 = rng.standard_normal((M, N)).astype(np.float32)
    path = INPUTS / f"{name}.ttir"
    module = compile_kernel(path, pipeline, shared=True)
    if pipeline:
        assert any(o.name == "aref.create" or o.name == "nvgpu.wg.dispatch" for o in module.walk()), \
            "not warp-specialized"
    got = _splitk(module, a, b, c0, block, split)
    want = c0 + a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
    if pipeline:
        assert np.array_equal(got, _splitk(parse_kernel(path, shared=True), a, b, c0, block, split))


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_row_sum_splitn(pipeline, rng):
    M, N = 200, 300  # 5 column tiles of 64 in 4 slices of 2, 2, 1, 0: the last program adds nothing
    x = rng.standard_normal((M, N)).astype(np.float16)
    out0 = rng.standard_normal(M).astype(np.float32)
    path = INPUTS / "row_sum_splitn_f16_128x64_s4.ttir"
    sig = {"x_ptr": "*fp16", "out_ptr": "*fp32", "M": "i32", "N": "i32", "stride_xm": "i32"}

    def run(module):
        out = out0.copy()
        args = expand(dict(x_ptr=x, out_ptr=out, M=M, N=N, stride_xm=N), sig)
        wsdialects.interpret(module, "row_sum_splitn_kernel", (cdiv(M, 128), 4), args, seed=3)
        return out

    got = run(compile_kernel(path, pipeline, shared=True))
    np.testing.assert_allclose(got, out0 + x.astype(np.float32).sum(1), rtol=1e-3, atol=1e-3)
    if pipeline:
        assert np.array_equal(got, run(parse_kernel(path, shared=True)))


def _kernel_text(name: str) -> str:
    parts = ATOMICS.read_text().split("// -----")
    return next(p for p in parts if f"@{name}(" in p)


# The hand-written forms: old values read back (fragment, row slice), i32 and f16 elements, a
# masked i32 add, a scalar counter; each program adds into the same C, so the adds meet.
@pytest.mark.parametrize("kernel", ["old_values", "int_and_half", "row_sums", "row_sums_two_groups"])
@pytest.mark.parametrize("pipeline", ["ws-hopper", "ws-hopper{cooperative=2}"])
def test_hand_written_forms(kernel, pipeline, tmp_path, rng):
    path = tmp_path / f"{kernel}.mlir"
    path.write_text(_kernel_text(kernel))
    rows = 128 if kernel == "row_sums_two_groups" else 64
    K, programs = 96, 3
    # small integers: every product and sum is exact, so i32's truncation has one right answer
    a, b = (rng.integers(-3, 4, (n, K)).astype(np.float16) for n in (rows, 64))
    acc = a.astype(np.float32) @ b.astype(np.float32).T

    def run(module):
        if kernel == "old_values":
            c, o = rng_c.copy(), np.zeros((64, 64), np.float32)
            wsdialects.interpret(module, kernel, programs, [a, b, c, o, K], seed=1)
            return c, o
        if kernel == "int_and_half":
            i, h = rng_i.copy(), np.zeros((64, 64), np.float16)
            wsdialects.interpret(module, kernel, programs, [a, b, i, h, 40, K], seed=1)
            return i, h
        r, o, done = rng_r.copy(), np.zeros(rows, np.float32), np.zeros(1, np.int32)
        wsdialects.interpret(module, kernel, programs, [a, b, r, o, done, K], seed=1)
        return r, o, done

    rng_c = rng.standard_normal((64, 64)).astype(np.float32)
    rng_i = rng.integers(-50, 50, (64, 64)).astype(np.int32)
    rng_r = rng.standard_normal(rows).astype(np.float32)
    before = run(parse_kernel(path))
    after = run(compile_kernel(path, pipeline))
    for x, y in zip(before, after):
        assert np.array_equal(x, y)
    if kernel == "old_values":
        c, o = after
        np.testing.assert_allclose(c, rng_c + programs * acc, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(o, rng_c + (programs - 1) * acc, rtol=1e-4, atol=1e-3)  # the last program's old
    elif kernel == "int_and_half":
        i, h = after
        cols = np.arange(64) < 40  # the mask: columns below n
        want = rng_i + programs * np.where(cols, np.trunc(acc).astype(np.int32), 0)
        assert np.array_equal(i, want)
        np.testing.assert_allclose(h.astype(np.float32), programs * acc.astype(np.float16).astype(np.float32),
                                   rtol=2e-2, atol=5e-2)
    else:
        r, o, done = after
        np.testing.assert_allclose(r, rng_r + programs * acc.sum(1), rtol=1e-3, atol=1e-2)
        np.testing.assert_allclose(o, rng_r + (programs - 1) * acc.sum(1), rtol=1e-3, atol=1e-2)
        assert done[0] == programs
