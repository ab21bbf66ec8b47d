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
