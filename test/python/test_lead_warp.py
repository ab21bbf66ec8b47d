"""Semantic tests of ws-lead-warp: every kernel interpreted after ws-lower-warp-groups and
after ws-lead-warp, on fresh random inputs and under seeded interleavings, gives the same
outputs; a producer that needs its warps (computed payloads: per-warp FULL arrivals) keeps
them; and putting per-warp work in one warp anyway is caught (the interpreter deadlocks on
the short arrival count, ws-verify-sync reports it)."""

import numpy as np
import pytest

import wsdialects
from cases import CASES, INPUTS, assert_same, run
from kernel_cache import compile_kernel
from wsdialects.lower.lead_warp import lead_warp, qualifies
from wsdialects.nvgpu import BranchOp, LeadWarpOp

LOWER = "ws-specialize{depth=3 mma-depth=1},ws-lower-aref,ws-lower-warp-groups"


def _lead_warps(m):
    return [o for o in m.walk() if isinstance(o, LeadWarpOp)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_lead_warp_preserves_semantics(case, rng):
    before = compile_kernel(case.path(), LOWER)
    after = compile_kernel(case.path(), LOWER + ",ws-lead-warp")
    (lw,) = _lead_warps(after)  # every bundled kernel's producer only issues TMA copies
    assert lw.parent_op().role.data == "producer"
    assert any(o.name == "nvgpu.tma.async_load" for o in lw.walk())
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 7):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_persistent_cooperative_producer(rng):
    case = CASES[0]  # gemm
    spec = "ws-specialize{persistent=true programs=3 cooperative=2},ws-lower-aref,ws-lower-warp-groups"
    before = compile_kernel(case.path(), spec)
    after = compile_kernel(case.path(), spec + ",ws-lead-warp")
    assert len(_lead_warps(after)) == 1
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 8):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_computed_payloads_keep_their_warps():
    """computed_put's producer stores a tile to shared memory and arrives once per warp:
    it needs all four warps, so the pass leaves it alone."""
    m = compile_kernel(INPUTS / "computed_put.mlir", "ws-lower-aref,ws-lower-warp-groups,ws-lead-warp")
    assert not _lead_warps(m)
    producer = next(b for b in m.walk() if isinstance(b, BranchOp) and b.role.data == "producer")
    assert not qualifies(producer)


def test_per_warp_work_in_one_warp_is_caught(rng):
    """Force the rewrite on computed_put's producer: its per-thread FULL arrivals then count 32
    of the 128 the barrier waits for; ws-verify-sync reports it as a defect, and the
    interpreter deadlocks."""
    from wsdialects.sync import Violation
    from wsdialects.sync.check import check_sync

    m = compile_kernel(INPUTS / "computed_put.mlir", "ws-lower-aref,ws-lower-warp-groups").clone()
    T = 3
    a = rng.standard_normal((64 * T, 64)).astype(np.float16)
    got = np.zeros_like(a)
    wsdialects.interpret(m, "computed_put", 1, [a, got, T])  # as lowered: fine
    np.testing.assert_array_equal(got, a * np.float16(2))
    producer = next(b for b in m.walk() if isinstance(b, BranchOp) and b.role.data == "producer")
    lead_warp(producer)
    with pytest.raises(Violation, match="expects 128 arrivals per phase, but each phase gets 32"):
        check_sync(m)
    with pytest.raises(wsdialects.Deadlock):
        wsdialects.interpret(m, "computed_put", 1, [a, np.zeros_like(a), T])
