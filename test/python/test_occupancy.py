"""ws-occupancy (C CTAs per SM): the kernels interpreted before and after it (alone, persistent,
cooperative, and lowered by ws-hopper) give the same outputs on fresh random inputs, and the
budgets it writes fit what one of C CTAs holds from launch wherever they are read."""

import pytest

from cases import CASES, assert_same, run
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.attributes import OCCUPANCY_ATTR, ctas_per_sm
from wsdialects.nvgpu import DispatchOp
from wsdialects.nvgpu.types import REGFILE, register_pool
from wsdialects.transforms.partition import kernels
from wsdialects.warp_group import PartitionOp

GEMMS = [c for c in CASES if c.name in ("gemm", "bias_gemm", "batched_gemm", "fp8_gemm")]


def _budget(module) -> tuple[int, int]:
    """(registers the partitions' budgets take, the kernel's CTAs per SM)."""
    parts = [o for o in module.walk() if isinstance(o, PartitionOp)]
    (kernel,) = kernels(module)
    used = sum(p.regs.value.data * 32 * p.warps for p in parts)
    assert used <= register_pool(sum(32 * p.warps for p in parts), ctas_per_sm(kernel))
    return used, ctas_per_sm(kernel)


@pytest.mark.parametrize("case", GEMMS + [c for c in CASES if c.name == "attention"], ids=lambda c: c.name)
@pytest.mark.parametrize("ctas,extra", [(2, ""), (2, ",ws-persistent{programs=3}"),
                                        (3, ",ws-cooperative{groups=2},ws-persistent{programs=2}")])
def test_occupancy_preserves_semantics(case, ctas, extra, rng):
    before = parse_kernel(case.path(), shared=True)
    after = compile_kernel(case.path(), f"ws-partition,ws-distribute{{depth=2}},ws-pipeline-mma{{depth=1}},"
                                        f"ws-occupancy{{ctas-per-sm={ctas}}}{extra}", shared=True)
    used, c = _budget(after)
    assert c == ctas and used <= REGFILE // ctas
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 3):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("case", GEMMS, ids=lambda c: c.name)
def test_two_ctas_per_sm_lowered_preserve_semantics(case, rng):
    """ws-hopper{ctas-per-sm=2}: the lowered kernel (a dispatch holding at most half the register
    file, rings in half the shared memory) still computes what the source does."""
    before = parse_kernel(case.path(), shared=True)
    after = compile_kernel(case.path(), "ws-hopper{ctas-per-sm=2}", shared=True)
    (disp,) = [o for o in after.walk() if isinstance(o, DispatchOp)]
    assert disp.num_ctas_per_sm == 2 and disp.register_pool <= REGFILE // 2
    grid, args = case.make(rng)
    assert_same(run(before, case, grid, args), run(after, case, grid, args, seed=7))


def test_persistent_launches_one_program_per_cta_the_sms_hold():
    """programs = 0 (the default): 132 programs at one CTA per SM, 264 at two; an explicit count stays."""
    case = GEMMS[0]
    for pipe, programs in [("ws-specialize{persistent=true}", 132),
                           ("ws-specialize{persistent=true ctas-per-sm=2}", 264),
                           ("ws-specialize{persistent=true ctas-per-sm=2 programs=7}", 7)]:
        (kernel,) = kernels(compile_kernel(case.path(), pipe, shared=True))
        assert kernel.attributes["ws.persistent"].data["programs"].value.data == programs, pipe


def test_cooperative_after_occupancy_keeps_the_share():
    """ws-cooperative re-fits the consumer groups' budgets: to the CTA's share, not the whole file
    (it would otherwise undo ws-occupancy; without the share the groups get 232 each), and to what a
    thread of three warp groups has at launch at two CTAs per SM."""
    case = GEMMS[0]
    after = compile_kernel(case.path(), "ws-partition,ws-distribute,ws-occupancy{ctas-per-sm=2},"
                                        "ws-cooperative{groups=2}", shared=True)
    used, c = _budget(after)
    regs = {p.regs.value.data for p in after.walk() if isinstance(p, PartitionOp) and p.pid != 0}
    assert c == 2 and used <= REGFILE // 2 and regs == {80}, regs  # 65536 / (2 x 384), not 104
    assert OCCUPANCY_ATTR in kernels(after)[0].attributes
