"""Inputs that used to crash a pass (issue 12): where the pass now handles them,
the kernel interpreted before and after it gives the same result; where it
cannot, the error is located (file:line:col)."""

from pathlib import Path

import pytest

import wsdialects
from cases import CASES, assert_same, run
from kernel_cache import compile_kernel, parse_kernel

TRANSFORM_INPUTS = Path(__file__).resolve().parents[1] / "transforms" / "Inputs"
GEMM = CASES[0]
assert GEMM.kernel == "matmul"


def transform(path, pipeline):
    return compile_kernel(path, pipeline)


@pytest.mark.parametrize("mma", [0, 1, 2])
def test_pipeline_mma_with_a_ring_read_at_two_positions(mma, rng):
    """A ring read at positions 2k and 2k+1 of iteration k and released at both:
    ws-pipeline-mma keeps both releases (no overlap) and the results do not change."""
    path = TRANSFORM_INPUTS / "pipeline-mma-two-positions.mlir"
    before = wsdialects.parse_file(path)
    after = transform(path, f"ws-pipeline-mma{{depth={mma}}}")
    grid, args = GEMM.make(rng)
    want = run(parse_kernel(GEMM.path()), GEMM, grid, args)
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


PTRS = "%p: tensor<4x!tile.ptr<f16>>, %m: tensor<4xi1>, %v: tensor<4xf16>"


@pytest.mark.parametrize("op,col", [
    ("%x = tile.load %p, %m, %v, %v : tensor<4x!tile.ptr<f16>> -> tensor<4xf16>", 18),
    ("tile.store %p : tensor<4x!tile.ptr<f16>>", 14),
    ("%a = tile.dot %v, %v : tensor<4xf16>, tensor<4xf16> -> tensor<4xf32>", 17),
    ("%a = mma.wait %v, %v {pending = 0} : tensor<4xf16>", 17),
])
def test_operand_count_errors_are_on_the_op_line(op, col):
    """Reported at the operand list (line 2), not where the parser stopped (line 3)."""
    text = f"func.func @f({PTRS}) {{\n  {op}\n  func.return\n}}\n"
    with pytest.raises(wsdialects.WsError) as e:
        wsdialects.parse(text, "f.mlir")
    assert (e.value.line, e.value.col) == (2, col), str(e.value)
    assert "operands" in e.value.message


def test_a_custom_parser_exception_is_located_at_its_op(monkeypatch):
    """An op's parser that raises a Python exception is reported at that op."""
    from wsdialects.tile import TransOp

    real = TransOp.parse_body.__func__

    def broken(cls, parser):
        real(cls, parser)  # the whole op, up to the next line's first token
        return [][0]

    monkeypatch.setattr(TransOp, "parse_body", classmethod(broken))
    text = f"func.func @f({PTRS}) {{\n  %t = tile.trans %v [0] : tensor<4xf16> -> tensor<4xf16>\n  func.return\n}}\n"
    with pytest.raises(wsdialects.WsError, match=r"f\.mlir:2:3: error: cannot parse this op \(IndexError: list index"):
        wsdialects.parse(text, "f.mlir")
