"""ws-cooperative and the rings of a schedule's compute partitions (issue 12).

S1: ws-cooperative counts, per ring, the partitions that release it. A schedule that puts
two dots sharing a load on different warp groups, then `cooperative=2`, splits one
consumer partition and not the other; with every ring counting 2 consumers the unsplit
partition's slots were never refilled (the interpreter's deadlock after `depth`
iterations).

S2: ws-cooperative does not split a partition that puts into a ring (after ws-schedule,
compute partitions pass tiles to each other): both groups used to put into the same slot.

Each runs from the solver's schedule kept as IR (test/Inputs/kernels/scheduled, no
OR-Tools needed) and, where OR-Tools is installed, from ws-schedule itself; the
compiled kernel computes what the tile kernel computes, under several interleavings.
"""

from pathlib import Path

import numpy as np
import pytest

import wsdialects
from wsdialects.aref import ConsumedOp, CreateOp, PutOp
from kernel_cache import compile_kernel, parse_kernel

INPUTS = Path(__file__).resolve().parents[1] / "Inputs" / "kernels"
# S1: the dots on different warp groups, one of them split by ws-cooperative. The solver chose
# this for two_dots_shared_load until it learnt that the epilogue holds both accumulators at
# once (2 x 128 registers: now one cooperative team, test_the_solver_keeps_both_accumulators_...);
# the stored IR keeps S1 as input.
TWO_DOTS = [(INPUTS / "scheduled" / "two_dots_shared_load.mlir", "ws-specialize{cooperative=2}")]
SOLVED = (INPUTS / "two_dots_shared_load.mlir", "ws-schedule{arch=h100},ws-specialize{cooperative=2}")
S2 = INPUTS / "scheduled" / "flash_attention_p_on_w1.mlir"


def compiled(path, pipeline):
    if "ws-schedule" in pipeline:
        pytest.importorskip("ortools")
    return compile_kernel(path, pipeline)


def partitions_of(m, op_type):
    """ring -> the partitions holding an op of `op_type` on it."""
    out = {}
    for p in [o for o in m.walk() if o.name == "warp_group.partition"]:
        for o in p.walk():
            if isinstance(o, op_type):
                out.setdefault(o.ring, set()).add(p)
    return out


@pytest.mark.parametrize("path,pipeline", TWO_DOTS, ids=["scheduled-ir"])
def test_consumers_count_the_releasing_partitions(path, pipeline):
    m = compiled(path, pipeline)
    releasers = partitions_of(m, ConsumedOp)
    rings = [o for o in m.walk() if isinstance(o, CreateOp)]
    # the S1 schedule: the dots on different warp groups
    assert any(len(releasers[r.ring]) == 1 for r in rings)  # the unsplit partition's rings
    assert any(len(releasers[r.ring]) == 2 for r in rings)  # the split one's
    for r in rings:
        assert r.num_consumers == len(releasers[r.ring]), r


def test_the_solver_keeps_both_accumulators_on_one_team():
    """The epilogue multiplies the two dots' 128x128 f32 results: one warp group would hold
    2 x 128 registers per thread there, so the solver plans a cooperative team of 2 (each
    member 64 rows of both), not one dot per warp group (which spilled on the GPU)."""
    m = compiled(*SOLVED)
    loop = next(o for o in m.walk() if o.name == "scf.for" and "ws.schedule" in o.attributes)
    assert loop.attributes["ws.schedule"].data["cooperative"].value.data == 2
    parts = partitions_of(m, ConsumedOp)
    assert all(len(p) == 2 for p in parts.values())  # every ring released by both members


@pytest.mark.parametrize("seed", [None, 1, 2])
@pytest.mark.parametrize("path,pipeline", [*TWO_DOTS, SOLVED], ids=["scheduled-ir", "ws-schedule"])
def test_runs_without_deadlock_and_computes_the_product(path, pipeline, seed, rng):
    m = compiled(path, pipeline)
    M, N, K = 128, 128, 64 * 7  # more iterations than the ring is deep
    x, w1, w2 = (rng.standard_normal(s).astype(np.float16) for s in ((M, K), (N, K), (N, K)))
    o = np.full((M, N), np.nan, np.float32)
    wsdialects.interpret(m, "two_dots", grid=(1, 1), args=[x, w1, w2, o, K], seed=seed)
    x64 = x.astype(np.float64)
    want = (x64 @ w1.astype(np.float64).T) * (x64 @ w2.astype(np.float64).T)
    assert np.allclose(o, want, rtol=1e-3, atol=1e-2)


def put_back_s1(monkeypatch) -> None:
    """ws-cooperative as it was before the S1 fix: once it split a partition, every ring
    got in the region counted `groups` consumers."""
    from xdsl.dialects.builtin import IntegerAttr

    from wsdialects.transforms.cooperative import CooperativePass

    split = CooperativePass.split

    def old_split(self, region, part):
        before = len(region.partitions)
        split(self, region, part)
        if len(region.partitions) > before:
            for ring in {o.ring for o in region.walk() if o.name == "aref.get"}:
                if isinstance(ring.owner, CreateOp):
                    ring.owner.consumers = IntegerAttr(self.groups, 32)

    monkeypatch.setattr(CooperativePass, "split", old_split)


def test_counting_groups_on_every_ring_deadlocked(monkeypatch, rng):
    """With S1 put back (and ws-verify-sync, which now stops it, off) the kernel fails: the
    unsplit partition's own ring is released once per slot and waits for two (a deadlock), and
    the ring of %x that all three consumer groups read counts two (a slot refilled before the
    third group got it: a release without its get)."""
    from wsdialects.interpreter.values import InterpretError

    put_back_s1(monkeypatch)
    monkeypatch.setattr("wsdialects.transforms.verify_sync.verify_sync", lambda op, internal=True: None)
    m = compiled(*TWO_DOTS[0])
    x, w1, w2 = (rng.standard_normal(s).astype(np.float16) for s in ((128, 448), (128, 448), (128, 448)))
    with pytest.raises(InterpretError):  # wsdialects.Deadlock is one
        wsdialects.interpret(m, "two_dots", grid=(1, 1), args=[x, w1, w2, np.zeros((128, 128), np.float32), 448],
                             seed=0)


def flash(module, rng, L=300, BH=2, D=128, seed=None):
    q, k, v = (rng.standard_normal((BH, L, D)).astype(np.float16) for _ in range(3))
    o = np.full((BH, L, D), np.nan, np.float16)
    wsdialects.interpret(module, "flash_attention", grid=(-(-L // 128), BH),
                         args=[q, k, v, o, L, float(1 / np.sqrt(D))], seed=seed)
    return o


def test_a_partition_that_puts_is_not_split(capfd):
    m = compiled(S2, "ws-specialize{cooperative=2}")
    err = capfd.readouterr().err
    assert "consumer partition 2 stays one group: it puts into ring %aref_p" in err, err
    for ring, parts in partitions_of(m, PutOp).items():
        assert len(parts) == 1, (ring.name_hint, [p.role_name for p in parts])


def test_a_partition_that_puts_computes_attention(rng):
    seed = int(rng.integers(1 << 30))
    want = flash(parse_kernel(S2), np.random.default_rng(seed))
    m = compiled(S2, "ws-specialize{cooperative=2}")
    for s in (None, 3):
        got = flash(m, np.random.default_rng(seed), seed=s)
        assert np.allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2)


def test_splitting_a_partition_that_puts_deadlocked(monkeypatch, rng):
    """ws-cooperative before the S2 fix (it did not look for puts), without ws-verify-sync:
    both groups put %p into the same slot; after as many key blocks as the ring is deep the
    slot a group refilled with a stale tile is never got again: the kernel deadlocks."""
    monkeypatch.setattr("wsdialects.transforms.cooperative.PutOp", type("NoPut", (), {}))
    monkeypatch.setattr("wsdialects.transforms.verify_sync.verify_sync", lambda op, internal=True: None)
    m = compiled(S2, "ws-specialize{cooperative=2}")
    assert len(partitions_of(m, PutOp)[next(r for r in partitions_of(m, PutOp) if r.name_hint == "aref_p")]) == 2
    with pytest.raises(wsdialects.Deadlock, match="aref_p"):
        flash(m, rng, L=600, BH=1, seed=0)
