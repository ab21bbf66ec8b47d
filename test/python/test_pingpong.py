"""ws-pingpong: the kernel interpreted before and after the pass (cooperative groups, then
the same groups taking turns) gives the same outputs, on fresh random inputs, under several
partition interleavings, at the warp_group level and lowered to named barriers; and the
turns do block: without the first turn that the last group hands to group 0, the kernel
deadlocks (warp_group level and named-barrier level alike)."""

from pathlib import Path

import numpy as np
import pytest
from cases import CASES, assert_same, run

import wsdialects
from wsdialects.nvvm import BarrierArriveOp
from wsdialects.warp_group import TurnPassOp, TurnWaitOp
from kernel_cache import compile_kernel

ATTN = Path(__file__).resolve().parents[2] / "examples" / "kernels"
BY_NAME = {c.name: c for c in CASES}


def compiled(path, pipeline):
    return compile_kernel(path, pipeline)


def flash(module, name, rng, L=150, BH=2, D=128, seed=None, out=None):
    q, k, v = (rng.standard_normal((BH, L, D)).astype(np.float16) for _ in range(3))
    o = np.full((BH, L, D), np.nan, np.float16)
    wsdialects.interpret(module, name, grid=(-(-L // 128), BH), args=[q, k, v, o, L, float(1 / np.sqrt(D))],
                         seed=seed)
    return o


@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal", "flash_attention_d64"])
@pytest.mark.parametrize("lowered", [False, True], ids=["warp_group", "named_barriers"])
def test_attention_same_before_and_after(name, lowered, rng):
    pipe = "ws-hopper{{cooperative=2{}}}" if lowered else "ws-specialize{{depth=2 mma-depth=1 cooperative=2{}}}"
    before = compiled(ATTN / f"{name}.mlir", pipe.format(""))
    after = compiled(ATTN / f"{name}.mlir", pipe.format(" pingpong=true"))
    assert any(isinstance(o, TurnWaitOp) for o in after.walk()) != lowered
    D = 64 if name.endswith("d64") else 128
    seed = int(rng.integers(1 << 30))
    ref = flash(before, name, np.random.default_rng(seed), D=D, seed=1)
    assert not np.isnan(ref.astype(np.float32)).any()
    for s in (2, 3):
        got = flash(after, name, np.random.default_rng(seed), D=D, seed=s)
        assert np.array_equal(ref, got, equal_nan=True)


@pytest.mark.parametrize("case", ["gemm", "causal_attention"])
def test_cases_same_before_and_after(case, rng):
    c = BY_NAME[case]
    before = compiled(c.path(), "ws-specialize{cooperative=2}")
    after = compiled(c.path(), "ws-specialize{cooperative=2 pingpong=true}")
    assert any(isinstance(o, TurnPassOp) for o in after.walk())
    grid, args = c.make(rng)
    ref = run(before, c, grid, args, seed=0)
    for s in (1, 4):
        assert_same(ref, run(after, c, grid, args, seed=s))


def _drop_first_turn(m, op_type):
    """Remove what the last group hands to group 0 first (its partition's / branch's first op)."""
    first = [o for o in m.walk() if isinstance(o, op_type)]
    starts = [o for o in first if o.parent_op().name in ("warp_group.partition", "nvgpu.wg.branch")
              and o.parent_block().first_op in (o, o.prev_op)]
    assert len(starts) == 1, starts
    starts[0].detach()
    starts[0].erase()


@pytest.mark.parametrize("lowered", [False, True], ids=["warp_group", "named_barriers"])
def test_turns_block(lowered, rng):
    pipe = "ws-hopper{cooperative=2 pingpong=true}" if lowered else "ws-specialize{cooperative=2 pingpong=true}"
    m = compiled(ATTN / "flash_attention.mlir", pipe)
    _drop_first_turn(m, BarrierArriveOp if lowered else TurnPassOp)
    with pytest.raises(wsdialects.Deadlock, match="turn_wait 0 of 2|named barrier"):
        flash(m, "flash_attention", rng, L=130, BH=1, seed=0)


@pytest.mark.parametrize("lowered", [False, True], ids=["warp_group", "named_barriers"])
def test_persistent_ping_pong_same_as_persistent(lowered, rng):
    """ws-persistent around ping-pong: the first turn and the last one are taken once per
    program, outside the tile loop (ws-specialize runs ws-pingpong after ws-persistent), and
    each program computes several tiles as without turns."""
    base = "ws-hopper{{cooperative=2 persistent=true programs=2{}}}" if lowered else \
        "ws-specialize{{depth=2 mma-depth=1 cooperative=2 persistent=true programs=2{}}}"
    before = compiled(ATTN / "flash_attention.mlir", base.format(""))
    after = compiled(ATTN / "flash_attention.mlir", base.format(" pingpong=true"))
    loop_turns = [o for o in after.walk() if isinstance(o, TurnWaitOp | TurnPassOp)
                  and o.parent_op().name == "warp_group.partition"]
    assert len(loop_turns) == (0 if lowered else 2)  # the team's first pass and last wait, outside the loops
    seed = int(rng.integers(1 << 30))
    ref = flash(before, "flash_attention", np.random.default_rng(seed), L=300, BH=2, seed=1)
    for s in (2, 5):
        got = flash(after, "flash_attention", np.random.default_rng(seed), L=300, BH=2, seed=s)
        assert np.array_equal(ref, got, equal_nan=True)


def test_turns_inside_the_tile_loop_are_reported(monkeypatch):
    """The old order (ws-pingpong, then ws-persistent wrapping the first turn and the last in
    the tile loop): the last group can pass a turn twice before group 0 takes the one it owes,
    and a named barrier then completes with one group's threads only. ws-verify-sync stops it."""
    from wsdialects.transforms.persistent import PersistentPass
    from wsdialects.transforms.pingpong import PingPongPass
    from wsdialects.transforms.specialize import SpecializePass

    passes = SpecializePass.passes

    def old_order(self):
        out = passes(self)
        return [p for p in out if not isinstance(p, PingPongPass | PersistentPass)] + \
            [p for p in out if isinstance(p, PingPongPass)] + [p for p in out if isinstance(p, PersistentPass)]

    monkeypatch.setattr(SpecializePass, "passes", old_order)
    with pytest.raises(wsdialects.WsError, match="internal compiler error: ws-verify-sync: .* reaches named barrier "
                                                 r"\d+ twice in one phase"):
        compiled(ATTN / "flash_attention.mlir", "ws-hopper{cooperative=2 pingpong=true persistent=true}")
