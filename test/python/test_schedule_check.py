"""Schedules are input, and input is checked (issue 12, S3): a `ws.order` that
contradicts a data dependence is a located error, not a deadlocking kernel; a schedule
that respects the dependences compiles into a kernel that computes what the tile kernel
computes. The kernel passes tiles both ways between two compute warp groups in one
iteration (test/Inputs/kernels/scheduled/round_trip*.mlir)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, parse_kernel

SCHEDULED = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "scheduled"
GOOD, BAD = SCHEDULED / "round_trip.mlir", SCHEDULED / "round_trip_bad_order.mlir"


def compiled(path: Path, pipeline: str):
    return compile_kernel(path, pipeline)


def run(module, rng, K=64 * 5, M=256, seed=None):
    x = (rng.standard_normal((M, K)) * 0.1).astype(np.float16)
    w1, w2 = ((rng.standard_normal((K, 64)) * 0.1).astype(np.float16) for _ in range(2))
    o = np.full((M, 64), np.nan, np.float32)
    wsdialects.interpret(module, "round_trip", grid=(M // 128,), args=[x, w1, w2, o, K], seed=seed)
    return o


def test_contradicting_order_is_a_located_error():
    with pytest.raises(wsdialects.WsError) as e:
        compiled(BAD, "ws-specialize")
    assert str(e.value) == (f"{BAD}:21:5: error: schedule: 'math.exp2' is ordered before its operand's producer %s "
                            "('tile.dot' at 20:5) in stage 0 (ws.order 3 < 6)")


def test_contradicting_order_used_to_deadlock(monkeypatch, rng):
    """Without the schedule check (and without ws-verify-sync, which would call it an
    internal error) the order is honoured and the kernel deadlocks: the check is needed."""
    from wsdialects.transforms import distribute, partition, pipeline_coarse, schedule_check, specialize  # noqa: F401

    for mod in (partition, distribute, pipeline_coarse, schedule_check):
        monkeypatch.setattr(mod, "check_schedule", lambda op: None)
    monkeypatch.setattr("wsdialects.transforms.verify_sync.verify_sync", lambda op, internal=True: None)
    m = compiled(BAD, "ws-specialize")
    with pytest.raises(wsdialects.Deadlock):
        run(m, rng, seed=0)


@pytest.mark.parametrize("pipeline", ["ws-specialize", "ws-specialize{depth=2 mma-depth=1}", "ws-hopper"])
def test_consistent_schedule_computes_the_tile_kernel(pipeline, rng):
    seed = int(rng.integers(1 << 30))
    want = run(parse_kernel(GOOD), np.random.default_rng(seed))
    m = compiled(GOOD, pipeline)
    assert sum(o.name == "warp_group.partition" for o in m.walk()) == 3 or pipeline == "ws-hopper"
    for s in (None, 1, 2):
        got = run(m, np.random.default_rng(seed), seed=s)
        assert np.allclose(got, want, rtol=1e-3, atol=1e-3), np.abs(got - want).max()


@pytest.mark.parametrize("attr,value,message", [
    ("ws.order", "late", "'math.exp2' ws.order must be an integer .*got \"late\""),
    ("ws.stage", 1.5, "'math.exp2' ws.stage must be an integer .*got 1.5"),
])
def test_attributes_of_the_wrong_kind(attr, value, message):
    """What the verifier rejects in text, the check rejects in IR a pass or a script built
    (with the same message: one attribute verifier serves both)."""
    from xdsl.dialects.builtin import FloatAttr, StringAttr, f32

    from wsdialects.transforms.schedule_check import check_schedule

    m = parse_kernel(GOOD)
    exp2 = next(o for o in m.walk() if o.name == "math.exp2")
    exp2.attributes[attr] = StringAttr(value) if isinstance(value, str) else FloatAttr(value, f32)
    with pytest.raises(wsdialects.WsError, match=message):
        check_schedule(m)


def test_schedule_of_the_wrong_kind():
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, i32

    from wsdialects.transforms.schedule_check import check_schedule

    m = parse_kernel(GOOD)
    loop = next(o for o in m.walk() if "ws.schedule" in o.attributes)
    loop.attributes["ws.schedule"] = ArrayAttr([IntegerAttr(8, i32)])
    with pytest.raises(wsdialects.WsError, match="ws.schedule must be a dictionary"):
        check_schedule(m)
    loop.attributes["ws.schedule"] = DictionaryAttr({"II": IntegerAttr(8, i32), "warps": IntegerAttr(0, i32)})
    with pytest.raises(wsdialects.WsError, match="ws.schedule: warps must be at least 1, got 0"):
        check_schedule(m)
