"""The Hopper lowering of tile.reshape (size-1 dims), tile.join and tile.split
(Inputs/kernels/regroup_gemm.mlir): the kernel computes what numpy does, gives the same
outputs interpreted before and after ws-lower-layouts (which re-types every regrouped
tile: #layout.pair, slices), and its PTX assembles where ptxas is installed."""

import numpy as np
import pytest

import wsdialects
from cases import INPUTS, Case, assert_same, cdiv, run
from kernel_cache import compile_kernel, compile_ptx, run_ptxas
from wsdialects.lower.lower_layouts import needs_layouts
from wsdialects.lower.ptxas import find_ptxas

LOWER = ",ws-lower-aref,ws-lower-warp-groups"
SPECS = ["ws-specialize{depth=2 mma-depth=1}" + LOWER, "ws-specialize{depth=2 mma-depth=0 cooperative=2}" + LOWER]
PATH = INPUTS / "regroup_gemm.mlir"


def regroup_args(rng, M=200, N=100, K=100):
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    out = np.zeros((M, N, 2), np.float32)
    rowmax = np.zeros(M, np.float32)
    return (cdiv(M, 128),), [a, b, out, rowmax, M, N, K]


CASE = Case("regroup_gemm", lambda: PATH, "regroup_gemm", regroup_args, (2, 3))


def test_kernel_computes_the_reference(rng):
    grid, args = CASE.make(rng)
    out, rowmax = run(wsdialects.parse(PATH.read_text()), CASE, grid, args)
    a, b = args[0].astype(np.float32), args[1].astype(np.float32)
    s = a @ b.T
    mx = s.max(axis=1)
    sh = s - mx[:, None]
    e = np.exp(sh)
    np.testing.assert_allclose(rowmax, mx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out[..., 0], sh - e, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(out[..., 1], e, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("spec", SPECS)
def test_layouts_preserve_semantics(spec, rng):
    before = compile_kernel(PATH, spec)
    after = compile_kernel(PATH, spec + ",ws-lower-layouts")
    assert not needs_layouts(after)
    kinds = {type(wsdialects.layout.layout_of(r.type)).__name__ for o in after.walk() for r in o.results}
    assert "PairLayout" in kinds
    after = wsdialects.parse(str(after))  # what prints re-parses and verifies
    grid, args = CASE.make(rng)
    want = run(before, CASE, grid, args)
    for seed in (None, 5):
        assert_same(want, run(after, CASE, grid, args, seed=seed))


def test_the_comparison_can_fail(rng):
    """A split whose halves are swapped changes the interleaved output."""
    spec = SPECS[0] + ",ws-lower-layouts"
    good = compile_kernel(PATH, spec)
    bad = wsdialects.parse(str(good))
    split = next(o for o in bad.walk() if o.name == "tile.split")
    lo, hi = split.results
    for u in list(lo.uses):
        u.operation.operands[u.index] = hi
    grid, args = CASE.make(rng)
    with pytest.raises(AssertionError):
        assert_same(run(good, CASE, grid, args), run(bad, CASE, grid, args))


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
def test_ptx_assembles():
    ptx = compile_ptx(PATH, "ws-hopper")  # what `ws-opt -p ws-hopper -t ptx` writes
    rc, text = run_ptxas(ptx, find_ptxas())
    assert rc == 0, text


# ---- the Triton example (examples/triton/gemm_join.py: tl.reshape, tl.join), from its TTIR
TTIR = INPUTS.parent / "triton" / "gemm_join_f16_128x128x64.ttir"


def _join_args(rng, M=150, N=100, K=100):
    from wsdialects.triton.launch import expand

    class Desc:  # what a host TensorDescriptor carries
        def __init__(self, base, block):
            self.base, self.block_shape = base, block
            self.shape, self.strides = base.shape, tuple(s // base.itemsize for s in base.strides)

    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    c = np.zeros((M, N, 2), np.float32)
    sig = {"a_desc": "tensordesc<fp16>", "b_desc": "tensordesc<fp16>", "c_ptr": "*fp32", "M": "i32", "N": "i32",
           "K": "i32"}
    args = expand(dict(a_desc=Desc(a, [128, 64]), b_desc=Desc(b, [128, 64]), c_ptr=c, M=M, N=N, K=K), sig,
                  "gemm_join_kernel")
    return (cdiv(M, 128),), args, a, b, c


def test_triton_join_kernel_matches_numpy_before_and_after_lowering(rng):
    grid, args, a, b, c = _join_args(rng)
    wsdialects.interpret(wsdialects.parse_file(str(TTIR)), "gemm_join_kernel", grid, args)
    s = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c[..., 0], s, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(c[..., 1], s - s.max(axis=1, keepdims=True), rtol=1e-3, atol=1e-3)
    want = c.copy()
    lowered = compile_kernel(TTIR, SPECS[0] + ",ws-lower-layouts")
    assert not needs_layouts(lowered)
    c[...] = 0
    wsdialects.interpret(lowered, "gemm_join_kernel", grid, args)
    assert np.array_equal(c, want)


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
def test_triton_join_kernel_ptx_assembles():
    ptx = compile_ptx(TTIR, "ws-hopper")
    rc, text = run_ptxas(ptx, find_ptxas())
    assert rc == 0, text
