"""Semantic tests of ws-version-masks: the kernel interpreted before and after the pass on
fresh random inputs gives the same result, at tile positions inside, across and outside
every bound (and where the index tile wraps around i32); the whole-tile branch is really
taken on interior tiles; and the pass runs inside ws-hopper on attention."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf

from cases import Case, assert_same, cdiv, run
from test_distribute import transform
from kernel_cache import parse_kernel

KERNEL = Path(__file__).resolve().parents[1] / "transforms" / "Inputs" / "masks.mlir"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def _case(M, N, L, diag, shift):
    def make(rng):
        x = rng.standard_normal((M, N)).astype(np.float32)
        return (cdiv(M, 64), cdiv(N, 64)), [x, np.zeros((M, N), np.float32), L, diag, shift]

    return Case("masks", lambda: KERNEL, "masks", make, (1,))


SHAPES = [
    # M, N, L, diag, shift
    (128, 192, 192, 0, 0),  # L on a tile edge; causal diagonal tiles, fully masked tiles
    (130, 200, 150, 0, 0),  # ragged L: a boundary tile
    (128, 192, 191, 62, 0),  # L one short of a tile end; the diagonal one short of a tile corner
    (128, 128, 1000, 1000, 0),  # every tile inside every bound
    (64, 256, 70, -40, 5),  # a negative diagonal offset, a shift
    (128, 128, 100, 0, 2**31 - 100),  # cols + shift wraps inside a tile
    (128, 128, 100, 7, -(2**31) + 10),  # and at the other end
    (64, 64, 0, 0, 0),  # nothing inside L
]


@pytest.mark.parametrize("M,N,L,diag,shift", SHAPES)
def test_versioning_preserves_semantics(M, N, L, diag, shift, rng):
    before = parse_kernel(KERNEL)
    after = transform(KERNEL, "ws-version-masks")
    # four of the six selects are decidable per tile (not the unsigned and the data masks)
    assert sum(isinstance(o, scf.IfOp) for o in after.walk()) == 4
    case = _case(M, N, L, diag, shift)
    grid, args = case.make(rng)
    assert_same(run(before, case, grid, args), run(after, case, grid, args))


def _poison_slow_paths(module):
    """Make the per-element select of every versioned mask yield garbage (NaN): a tile that
    takes the whole-tile branch does not notice."""
    from xdsl.dialects import arith as xarith
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    n = 0
    for op in list(module.walk()):
        if op.name == "arith.select" and isinstance(op.parent_op(), scf.IfOp):
            t = op.results[0].type
            nan = xarith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [float("nan")]))
            op.parent_block().insert_op_before(nan, op)
            op.results[0].replace_all_uses_with(nan.result)
            op.detach()
            op.erase()
            n += 1
    return n


def test_interior_tiles_take_the_whole_tile_branch(rng):
    after = transform(KERNEL, "ws-version-masks")
    assert _poison_slow_paths(after) == 4
    before = parse_kernel(KERNEL)
    # every tile inside L, on or below the diagonal, rows inside: no slow path runs
    inside = _case(128, 128, 1000, 1000, 0)
    grid, args = inside.make(rng)
    assert_same(run(before, inside, grid, args), run(after, inside, grid, args))
    # a boundary tile runs its slow path: the poison shows (the test can fail)
    ragged = _case(128, 128, 100, 1000, 0)
    grid, args = ragged.make(rng)
    got = run(after, ragged, grid, args)[0]
    assert np.isnan(got).any()


def test_hopper_versions_the_attention_key_mask():
    """ws-hopper leaves the key-bound select of attention (lowered, in each consumer group)
    behind a whole-tile test; its fast branch yields the raw QK^T tile."""
    module = transform(EXAMPLES / "flash_attention.mlir", "ws-hopper")
    guards = [o for o in module.walk() if isinstance(o, scf.IfOp)
              and len(o.true_region.blocks[0].ops) == 1 and any(b.name == "arith.select" for b in o.walk())]
    assert len(guards) >= 2  # one per consumer group at least
    fast = {g.true_region.blocks[0].last_op.operands[0].owner.name for g in guards}
    assert fast == {"nvgpu.wgmma.wait_group"}  # keys all inside L: the raw QK^T tile
