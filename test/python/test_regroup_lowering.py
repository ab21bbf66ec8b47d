"""The Hopper lowering of tile.reshape (size-1 dims), tile.join and tile.split
(Inputs/kernels/regroup_gemm.mlir): the kernel computes what numpy does, gives the same
outputs interpreted before and after ws-lower-layouts (which re-types every regrouped
tile: #layout.pair, slices), and its PTX assembles where ptxas is installed."""

import subprocess

import numpy as np
import pytest

import wsdialects
from cases import INPUTS, Case, assert_same, cdiv, run
from kernel_cache import compile_kernel
from wsdialects.lower.lower_layouts import needs_layouts
from wsdialects.lower.ptxas import find_ptxas, run_ptxas

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
    ptx = subprocess.run(["ws-opt", str(PATH), "-p", "ws-hopper", "-t", "ptx"], capture_output=True, text=True,
                         check=True).stdout
    rc, text = run_ptxas(ptx, find_ptxas())
    assert rc == 0, text
