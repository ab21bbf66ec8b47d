"""Inputs that used to crash a pass (issue 12): where the pass now handles them,
the kernel interpreted before and after it gives the same result; where it
cannot, the error is located (file:line:col)."""

from pathlib import Path

import pytest

import wsdialects
from cases import CASES, assert_same, run
from wsdialects.tools.ws_opt import build_pipeline

TRANSFORM_INPUTS = Path(__file__).resolve().parents[1] / "transforms" / "Inputs"
GEMM = CASES[0]
assert GEMM.kernel == "matmul"


def transform(path, pipeline):
    module = wsdialects.parse_file(path)
    build_pipeline(pipeline, str(path)).apply(None, module)
    return module


@pytest.mark.parametrize("mma", [0, 1, 2])
def test_pipeline_mma_with_a_ring_read_at_two_positions(mma, rng):
    """A ring read at positions 2k and 2k+1 of iteration k and released at both:
    ws-pipeline-mma keeps both releases (no overlap) and the results do not change."""
    path = TRANSFORM_INPUTS / "pipeline-mma-two-positions.mlir"
    before = wsdialects.parse_file(path)
    after = transform(path, f"ws-pipeline-mma{{depth={mma}}}")
    grid, args = GEMM.make(rng)
    want = run(wsdialects.parse_file(GEMM.path()), GEMM, grid, args)
    assert_same(want, run(before, GEMM, grid, args))
    for seed in (None, 1, 2):
        assert_same(want, run(after, GEMM, grid, args, seed=seed))


@pytest.mark.parametrize("pipeline", ["ws-partition,ws-distribute{depth=2}", "ws-specialize{depth=3 mma-depth=1}",
                                      "ws-specialize"])
def test_distribute_tile_through_scf_if(pipeline, rng):
    """A view of a TMA tile leaves an scf.if; the dot reads the if's result."""
    import numpy as np

    path = TRANSFORM_INPUTS / "distribute-tile-through-if.mlir"
    before = wsdialects.parse_file(path)
    after = transform(path, pipeline)
    K = 5
    a = rng.standard_normal((128, 64 * K)).astype(np.float16)

    def out(module, seed=None):
        o = np.zeros((128, 128), np.float32)
        wsdialects.interpret(module, "carry", 1, [a, o, K], seed=seed)
        return o

    want = out(before)
    assert np.abs(want).max() > 0
    for seed in (None, 1, 2):
        np.testing.assert_array_equal(want, out(after, seed))
