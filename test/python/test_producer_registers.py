"""Semantic test of ws-producer-registers: it changes only the partitions' register budgets, so
the kernels interpreted before and after the pass (on random inputs, several partition
interleavings) agree, and the budgets it gives fit the registers the CTA holds from launch
(setmaxnreg only moves them between warp groups: more would leave a `.inc` waiting forever)."""

import pytest

from cases import CASES, assert_same, run
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.nvgpu.types import register_pool
from wsdialects.warp_group import PartitionOp


@pytest.mark.parametrize("name,team", [("attention", "ws-cooperative{groups=2},"), ("gemm", "")])
def test_producer_registers_preserves_semantics(name, team, rng):
    case = next(c for c in CASES if c.name == name)
    base = f"ws-partition,ws-distribute{{depth=2}},{team}"
    before = compile_kernel(case.path(), base.rstrip(","), shared=True)
    after = compile_kernel(case.path(), base + "ws-producer-registers", shared=True)
    parts = [o for o in after.walk() if isinstance(o, PartitionOp)]
    regs = {p.role_name: p.regs.value.data for p in parts}
    assert regs["producer"] == 24 and all(r == 240 for role, r in regs.items() if role != "producer")
    threads = sum(p.warps * 32 for p in parts)
    assert sum(p.warps * 32 * p.regs.value.data for p in parts) == register_pool(threads) == 64512
    grid, args = case.make(rng)
    want = run(parse_kernel(case.path(), shared=True), case, grid, args)
    for seed in (None, 2, 3):
        assert_same(want, run(after, case, grid, args, seed=seed))
        assert_same(want, run(before, case, grid, args, seed=seed))
