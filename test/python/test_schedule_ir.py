"""ws-schedule on the IR: Twill's schedule written as ws.stage / ws.order /
ws.warp attributes, honoured by ws-partition and ws-distribute (one consumer
partition per scheduled warp group, every crossing tile through an aref).
Each kernel is interpreted before and after `ws-schedule,ws-specialize` over
several ring depths and interleavings, and must give identical outputs."""

import pytest

import wsdialects
from cases import CASES, assert_same, run
from wsdialects.aref import GetOp, PutOp
from wsdialects.tools.ws_opt import build_pipeline
from wsdialects.warp_group import PartitionOp

# ws-schedule caches solutions per process (by graph), so the kernels below are
# solved once however many depths and seeds run.  Two kernels stay unscheduled
# (the pass leaves them as they are, with a remark, and the default partitioning
# must still be right): gemm, whose 128x256 f32 accumulator needs 256 registers
# per thread of one warp group, above the h100 model's 240, and causal attention,
# whose graph is not solved within the limit (wsdialects/schedule/README.md).
SCHED = "ws-schedule{arch=h100 time-limit=10}"


def transform(path, pipeline):
    module = wsdialects.parse_file(path)
    build_pipeline(pipeline, str(path)).apply(None, module)
    return module


def by_name(name):
    return next(c for c in CASES if c.name == name)


UNSCHEDULED = ("gemm", "causal_attention")
SCHEDULED = [c for c in CASES if c.name not in UNSCHEDULED]


@pytest.mark.parametrize("case", SCHEDULED, ids=lambda c: c.name)
def test_schedule_attributes(case):
    module = transform(case.path(), SCHED)
    loop_ops = [op for op in module.walk() if "ws.warp" in op.attributes]
    assert loop_ops, "no op was scheduled"
    for op in loop_ops:
        for a in ("ws.stage", "ws.order", "ws.warp"):
            assert a in op.attributes
    orders = sorted(op.attributes["ws.order"].value.data for op in loop_ops)
    assert orders == list(range(len(loop_ops)))
    # the attributes survive printing and re-parsing
    again = wsdialects.parse(str(module))
    assert str(again) == str(module)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("depth,mma", [(1, 0), (2, 1), (3, 2)])
def test_scheduled_specialize_preserves_semantics(case, depth, mma, rng):
    before = wsdialects.parse_file(case.path())
    after = transform(case.path(), f"{SCHED},ws-specialize{{depth={depth} mma-depth={mma}}}")
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 1, 2):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_attention_follows_the_warp_assignment():
    case = by_name("attention")
    module = transform(case.path(), SCHED + ",ws-partition,ws-distribute{depth=2}")
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
    before = wsdialects.parse_file(case.path())
    after = annotate(wsdialects.parse_file(case.path()), ASSIGNMENTS[name])
    build_pipeline(f"ws-specialize{{depth={depth} mma-depth={mma}}}", "x").apply(None, after)
    parts = [p for p in after.walk() if isinstance(p, PartitionOp)]
    want_parts = {"l_with_softmax": 3, "four_groups": 5, "split_recurrence": 2, "split_recurrence_3": 3}[name]
    assert len(parts) == want_parts
    wsdialects.parse(str(after))  # prints and re-parses
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 1, 2, 3):
        assert_same(want, run(after, case, grid, args, seed=seed))
