"""Semantic tests of ws-lower-layouts: every kernel interpreted before and after the
pass (fresh random inputs, seeded interleavings) gives the same outputs, and every tile
of every warp-group branch has a layout afterwards. The pass may copy index tiles and
insert shared-memory loads (nvgpu.smem.load), so a wrong copy or a load at the wrong
place would change results here."""

import numpy as np
import pytest

import wsdialects
from cases import CASES, assert_same, run
from wsdialects.layout import layout_of
from wsdialects.lower.lower_layouts import needs_layouts
from kernel_cache import compile_kernel

LOWER = ",ws-lower-aref,ws-lower-warp-groups"
SPECS = ["ws-specialize{depth=4 mma-depth=1}" + LOWER, "ws-specialize{depth=2 mma-depth=0 cooperative=2}" + LOWER,
         "ws-specialize{persistent=true programs=3}" + LOWER]


def transform(path, pipeline):
    return compile_kernel(path, pipeline)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("spec", SPECS)
def test_layouts_preserve_semantics(case, spec, rng):
    before = transform(case.path(), spec)
    assert needs_layouts(before)
    after = transform(case.path(), spec + ",ws-lower-layouts")
    assert not needs_layouts(after)
    after = wsdialects.parse(str(after))  # what prints re-parses and verifies
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 5):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_pass_is_idempotent():
    spec = "ws-hopper"
    once = transform(CASES[0].path(), spec)
    twice = transform(CASES[0].path(), spec + ",ws-lower-layouts")
    assert str(once) == str(twice)


def test_every_consumer_tile_of_softmax_gemm_is_placed():
    case = next(c for c in CASES if c.name == "softmax_gemm")
    m = transform(case.path(), "ws-hopper")
    kinds = {type(layout_of(r.type)).__name__ for op in m.walk() for r in op.results
             if layout_of(r.type) is not None}
    assert kinds == {"WgmmaLayout", "SliceLayout", "SharedLayout"}


def test_semantic_check_catches_an_early_load(rng):
    """The comparison above can fail: mean_gemm's nvgpu.smem.load (with its view) moved
    above the wait on the slot's FULL barrier reads shared memory before TMA filled it."""
    case = next(c for c in CASES if c.name == "mean_gemm")
    spec = "ws-specialize{depth=2 mma-depth=0}" + LOWER + ",ws-lower-layouts"
    good = transform(case.path(), spec)
    bad = transform(case.path(), spec)
    load = next(o for o in bad.walk() if o.name == "nvgpu.smem.load")
    view = load.operands[0].owner
    block = view.parent_block()
    ops = list(block.ops)
    wait = [o for o in ops[:ops.index(view)] if o.name == "nvgpu.mbarrier.try_wait.parity"][-1]
    for o in (view, load):
        o.detach()
        block.insert_op_before(o, wait)
    grid, args = case.make(rng)
    want = run(good, case, grid, args)
    with pytest.raises(AssertionError):
        assert_same(want, run(bad, case, grid, args))
