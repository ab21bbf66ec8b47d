"""ws-schedule on the IR: Twill's schedule written as ws.stage / ws.order /
ws.warp attributes, honoured by ws-partition and ws-distribute (one consumer
partition per scheduled warp group, every crossing tile through an aref).
Each kernel is interpreted before and after `ws-schedule,ws-specialize` over
several ring depths and interleavings, and must give identical outputs."""

from pathlib import Path

import pytest

import wsdialects
from cases import CASES, assert_same, run
from wsdialects.aref import GetOp, PutOp
from wsdialects.tools.ws_opt import build_pipeline
from wsdialects.warp_group import PartitionOp
from kernel_cache import compile_kernel, parse_kernel

# ws-schedule caches solutions per process (by graph), so the kernels below are
# solved once however many depths and seeds run.  Every kernel is scheduled:
# gemm's 128x256 f32 accumulator (256 registers per thread of one warp group,
# above the h100 model's 240) is modelled as split over its two warp groups
# (a cooperative team, ws.schedule cooperative = 2), and causal attention's mask
# is index arithmetic that every partition recomputes.
# The solver answers attention in ~3-4 s on the idle 2-core machine; the limit leaves room
# for a loaded one (a limit hit leaves the loop unscheduled, which these tests would
# report as a failure of the pass).
SCHED = "ws-schedule{arch=h100 time-limit=60}"
# The compute groups as independent warps only (no ping-pong team): the
# organisation that splits attention's ops over two consumer partitions.
SCHED_SPLIT = "ws-schedule{arch=h100 time-limit=60 pingpong=false}"

# Ops computed from the induction variable alone: scheduled (stage, order) but
# not assigned to a warp group; each partition using them computes its own copy.
INDEX_OPS = {"causal_attention": {"offs_n", "causal"}}


def transform(path, pipeline):
    return compile_kernel(path, pipeline)


def by_name(name):
    return next(c for c in CASES if c.name == name)


def remarks_of(module):
    return [op for op in module.walk() if "ws.schedule" in op.attributes]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_schedule_attributes(case):
    module = transform(case.path(), SCHED)
    assert remarks_of(module), "the main loop was not scheduled"
    loop_ops = [op for op in module.walk() if "ws.order" in op.attributes]
    assert loop_ops, "no op was scheduled"
    unassigned = set()
    for op in loop_ops:
        assert "ws.stage" in op.attributes
        if "ws.warp" not in op.attributes:
            unassigned.add(op.results[0].name_hint)
    assert unassigned == INDEX_OPS.get(case.name, set())
    orders = sorted(op.attributes["ws.order"].value.data for op in loop_ops)
    assert orders == list(range(len(loop_ops)))
    # the attributes survive printing and re-parsing
    again = wsdialects.parse(str(module))
    assert str(again) == str(module)


def test_gemm_is_scheduled_on_a_cooperative_team():
    case = by_name("gemm")
    module = transform(case.path(), SCHED)
    loop = remarks_of(module)[0]
    info = loop.attributes["ws.schedule"].data
    assert info["warps"].value.data == 1 and info["cooperative"].value.data == 2
    dot = next(op for op in loop.body.walk() if op.name == "tile.dot")
    assert dot.attributes["ws.warp"].value.data == 0


def test_a_loop_of_mmas_alone_gets_the_lockstep_team():
    # Both teams reach the same II on gemm; with nothing but MMAs in the loop there is
    # nothing for a ping-pong partner to overlap, so the tie goes to the lockstep team
    # (on the H100 the ping-pong one ran 0.75x cuBLAS against 0.87-0.91x).
    loop = remarks_of(transform(by_name("gemm").path(), SCHED))[0]
    info = loop.attributes["ws.schedule"].data
    assert info["cooperative"].value.data == 2 and "pingpong" not in info


@pytest.mark.parametrize("name,work", [("gemm", False), ("attention", True), ("causal_attention", True)])
def test_non_mma_work_of_a_ping_pong_team(name, work):
    from xdsl.dialects import scf

    from wsdialects.schedule.from_ir import graph_of_loop
    from wsdialects.transforms.schedule import _has_non_mma_work

    module = wsdialects.parse_file(by_name(name).path())
    kernel = next(op for op in module.walk() if op.name == "func.func")
    loop = next(op for op in kernel.body.block.ops if isinstance(op, scf.ForOp))
    assert _has_non_mma_work(graph_of_loop(kernel, loop, "h100", pingpong=True)) == work


@pytest.mark.parametrize("depth,mma", [(2, 1), (3, 2)])
def test_gemm_schedule_with_cooperative_groups(depth, mma, rng):
    """The team the schedule assumes: ws-specialize{cooperative=2} splits the
    accumulator into 2 x 64x256; same result as before."""
    case = by_name("gemm")
    before = parse_kernel(case.path(), shared=True)
    after = transform(case.path(), f"{SCHED},ws-specialize{{depth={depth} mma-depth={mma} cooperative=2}}")
    parts = [p for p in after.walk() if isinstance(p, PartitionOp)]
    assert len(parts) == 3
    dots = [op for op in after.walk() if op.name == "mma.async_dot"]
    assert dots and all(op.results[0].type.get_shape() == (64, 256) for op in dots)
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 1):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_causal_mask_is_recomputed_by_its_users():
    case = by_name("causal_attention")
    module = transform(case.path(), SCHED_SPLIT + ",ws-partition,ws-distribute{depth=2}")
    parts = [p for p in module.walk() if isinstance(p, PartitionOp)]
    assert [p.role_name for p in parts][0] == "producer" and len(parts) >= 3
    sent = {v.name_hint for p in parts for op in p.body.walk() if isinstance(op, PutOp) for v in op.values}
    assert not sent & INDEX_OPS["causal_attention"], "index arithmetic is recomputed, not sent"
    users = [p for p in parts if any(op.results and op.results[0].name_hint == "causal"
                                     for op in p.body.walk())]
    assert users and all(p.role_name.startswith("consumer_w") for p in users)


def _scheduled_ops(module):
    return {op.results[0].name_hint: {a: op.attributes[a] for a in ("ws.stage", "ws.order", "ws.warp")
                                      if a in op.attributes}
            for op in module.walk() if "ws.order" in op.attributes and op.results}


@pytest.mark.parametrize("name", ["gemm", "attention", "causal_attention"])
def test_schedule_survives_partition_and_distribute(name):
    """ws.stage / ws.order / ws.warp reach the ops of every consumer
    partition's loop copy unchanged, and each loop copy keeps ws.schedule
    (ws-pipeline-coarse reads them there)."""
    case = by_name(name)
    scheduled = transform(case.path(), SCHED)
    want = _scheduled_ops(scheduled)
    loop = remarks_of(scheduled)[0]
    after = transform(case.path(), SCHED + ",ws-partition,ws-distribute{depth=2}")
    seen = set()
    for part in (p for p in after.walk() if isinstance(p, PartitionOp)):
        loops = [op for op in part.body.walk() if op.name == "scf.for"]
        assert len(loops) == 1
        assert loops[0].attributes.get("ws.schedule") == loop.attributes["ws.schedule"]
        for op in loops[0].body.walk():
            if op.results and op.results[0].name_hint in want and op.name == next(
                    o.name for o in loop.body.walk() if o.results and o.results[0].name_hint == op.results[0].name_hint):
                got = {a: op.attributes[a] for a in ("ws.stage", "ws.order", "ws.warp") if a in op.attributes}
                assert got == want[op.results[0].name_hint], op.results[0].name_hint
                seen.add(op.results[0].name_hint)
    assert seen == set(want), "every scheduled op is somewhere in a loop copy"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("depth,mma", [(1, 0), (2, 1), (3, 2)])
@pytest.mark.parametrize("sched", [SCHED, SCHED_SPLIT], ids=["chosen", "split"])
def test_scheduled_specialize_preserves_semantics(case, depth, mma, sched, rng):
    """Whichever organisation the schedule chose (attention: a ping-pong team,
    built by ws-cooperative + ws-pingpong) and the split one."""
    before = parse_kernel(case.path(), shared=True)
    after = compile_kernel(case.path(), f"{sched},ws-specialize{{depth={depth} mma-depth={mma}}}", shared=True)
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 1, 2):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("depth,mma", [(1, 0), (3, 2)])
def test_scheduled_distribute_preserves_semantics(case, depth, mma, rng):
    """The schedule's partitions without ws-pipeline-coarse (see above)."""
    before = parse_kernel(case.path(), shared=True)
    after = compile_kernel(case.path(), f"{SCHED_SPLIT},ws-partition,ws-distribute{{depth={depth}}},"
                                        f"ws-pipeline-mma{{depth={mma}}}", shared=True)
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 1, 2):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_attention_follows_the_warp_assignment():
    case = by_name("attention")
    module = transform(case.path(), SCHED_SPLIT + ",ws-partition,ws-distribute{depth=2}")
    parts = [p for p in module.walk() if isinstance(p, PartitionOp)]
    assert [p.role_name for p in parts] == ["producer", "consumer_w0", "consumer_w1"]
    # every scheduled op sits in the partition of its warp group
    for p in parts[1:]:
        w = int(p.role_name[len("consumer_w"):])
        for op in p.body.walk():
            if "ws.warp" in op.attributes:
                assert op.attributes["ws.warp"].value.data == w
    # the P tile goes from the softmax group to the PV group through an aref
    sent = {v.name_hint for p in parts for op in p.body.walk() if isinstance(op, PutOp) for v in op.values}
    assert "p16" in sent and {"k", "v", "q"} <= sent
    for p in parts[1:]:
        loops = [o for o in p.body.block.ops if o.name == "scf.for"]
        assert len(loops) == 1, "each partition runs its own copy of the loop"
    assert any(isinstance(op, GetOp) for op in parts[2].body.walk())


# Hand-written warp assignments: the passes honour any ws.warp, not only the
# solver's.  Ops not named keep no ws.warp (placed with their users).
SOFTMAX = ["qk", "rowmax", "rowmax_s", "m_ij", "qk_s", "qk_c", "p", "l_ij", "m_diff", "alpha"]
ASSIGNMENTS = {
    # l (the row sums) stays with softmax, the accumulator with PV: the epilogue
    # runs on the PV group and receives l after the loop.
    "l_with_softmax": {**{n: 0 for n in SOFTMAX}, "l_scaled": 0, "l_new": 0, "p16": 0,
                       "acc_s": 1, "acc_new": 1},
    # four groups: QK^T, exp, the conversion, PV; values cross at every step
    "four_groups": {"qk": 0, "rowmax": 0, "rowmax_s": 0, "m_ij": 0, "qk_s": 0, "qk_c": 0,
                    "p": 1, "l_ij": 1, "m_diff": 0, "alpha": 0, "l_scaled": 1, "l_new": 1,
                    "p16": 2, "acc_s": 3, "acc_new": 3},
    # the accumulator recurrence split over two groups: they are merged (one
    # consumer partition remains: the default partitioning)
    "split_recurrence": {**{n: 0 for n in SOFTMAX}, "l_scaled": 0, "l_new": 0, "p16": 0,
                         "acc_s": 0, "acc_new": 1},
    # the recurrence split, plus a third group: two partitions remain
    "split_recurrence_3": {**{n: 0 for n in SOFTMAX}, "l_scaled": 2, "l_new": 2, "p16": 0,
                           "acc_s": 0, "acc_new": 1},
}


def annotate(module, assignment):
    from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i32

    loop = next(op for op in module.walk() if op.name == "scf.for")
    for op in loop.body.block.ops:
        name = op.results[0].name_hint if op.results else None
        if name in assignment:
            op.attributes["ws.warp"] = IntegerAttr(assignment[name], i32)
        elif op.name == "tile.desc_load":
            op.attributes["ws.warp"] = IntegerAttr(9, i32)
    loop.attributes["ws.schedule"] = DictionaryAttr({"vl_warp": IntegerAttr(9, i32)})
    return module


@pytest.mark.parametrize("name", list(ASSIGNMENTS))
@pytest.mark.parametrize("depth,mma", [(1, 0), (3, 2)])
def test_hand_assignments_preserve_semantics(name, depth, mma, rng):
    case = by_name("attention")
    before = parse_kernel(case.path(), shared=True)
    after = annotate(parse_kernel(case.path()), ASSIGNMENTS[name])
    build_pipeline(f"ws-specialize{{depth={depth} mma-depth={mma}}}", "x").apply(None, after)
    parts = [p for p in after.walk() if isinstance(p, PartitionOp)]
    want_parts = {"l_with_softmax": 3, "four_groups": 5, "split_recurrence": 2, "split_recurrence_3": 3}[name]
    assert len(parts) == want_parts
    wsdialects.parse(str(after))  # prints and re-parses
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 1, 2, 3):
        assert_same(want, run(after, case, grid, args, seed=seed))


# ws-schedule's output for the test kernels the GPU tests run (test/gpu/test_hopper_gpu.py runs
# each stored file through ws-hopper against torch, where there is no OR-Tools).
STORED = ["bias_gemm", "batched_gemm", "fp8_gemm", "dual_dot", "tma_store_gemm", "relu_gemm", "mean_gemm",
          "softmax_gemm", "fused_mlp", "staged_mlp"]


@pytest.mark.parametrize("name", STORED)
def test_stored_schedules_of_the_test_kernels_are_the_solver_output(name):
    pytest.importorskip("ortools")
    kernels = Path(__file__).resolve().parents[1] / "Inputs" / "kernels"
    stored = (kernels / "scheduled" / f"{name}.mlir").read_text()
    fresh = transform(kernels / f"{name}.mlir", SCHED)
    assert remarks_of(fresh), "not scheduled"
    body = "\n".join(line for line in stored.splitlines() if not line.startswith("//"))
    assert str(fresh).strip() == body.strip()
