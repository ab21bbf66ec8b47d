"""ws-cooperative counts, per ring, the partitions that release it (issue 12, S1): a schedule
that puts two dots sharing a load on different warp groups, then `cooperative=2`, splits
one consumer partition and not the other; with every ring counting 2 consumers the unsplit
partition's slots were never refilled (the interpreter's deadlock after `depth` iterations)."""

from pathlib import Path

import numpy as np
import pytest

import wsdialects
from wsdialects.aref import ConsumedOp, CreateOp
from wsdialects.tools.ws_opt import build_pipeline

pytest.importorskip("ortools")

KERNEL = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "two_dots_shared_load.mlir"
PIPE = "ws-schedule{arch=h100},ws-specialize{cooperative=2}"


def compiled():
    m = wsdialects.parse_file(KERNEL)
    build_pipeline(PIPE, str(KERNEL)).apply(None, m)
    return m


def test_consumers_count_the_releasing_partitions():
    m = compiled()
    releasers = {}
    for p in [o for o in m.walk() if o.name == "warp_group.partition"]:
        for o in p.walk():
            if isinstance(o, ConsumedOp):
                releasers.setdefault(o.ring, set()).add(p)
    rings = [o for o in m.walk() if isinstance(o, CreateOp)]
    assert any(len(releasers[r.ring]) == 1 for r in rings)  # the unsplit partition's rings
    assert any(len(releasers[r.ring]) == 2 for r in rings)  # the split one's
    for r in rings:
        assert r.num_consumers == len(releasers[r.ring]), r


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_runs_without_deadlock_and_computes_the_product(seed, rng):
    m = compiled()
    M, N, K = 128, 128, 64 * 7  # more iterations than the ring is deep
    x, w1, w2 = (rng.standard_normal(s).astype(np.float16) for s in ((M, K), (N, K), (N, K)))
    o = np.full((M, N), np.nan, np.float32)
    wsdialects.interpret(m, "two_dots", grid=(1, 1), args=[x, w1, w2, o, K], seed=seed)
    x64 = x.astype(np.float64)
    want = (x64 @ w1.astype(np.float64).T) * (x64 @ w2.astype(np.float64).T)
    assert np.allclose(o, want, rtol=1e-3, atol=1e-2)
