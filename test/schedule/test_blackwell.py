"""The Blackwell machine model (machines/b200.json, tensor_memory.py, the issuer warp) and the
strategies ws-schedule{arch=b200} finds (Twill §6.2.2, §6.3.2): FA4's forward on
examples/kernels/flash_attention_fa4.mlir, asserted on the schedule's structure (which ops
share a warp group, stages, overlaps), not on exact numbers. The FA4 kernel is also
interpreted against numpy (it has no Hopper lowering of its own)."""

import os
import time

import numpy as np
import pytest

import wsdialects
from wsdialects.schedule import GraphError, graph_from_dict
from wsdialects.schedule.from_ir import graph_of_loop
from wsdialects.schedule.joint import twill
from wsdialects.schedule.machine import load_machine
from wsdialects.transforms.partition import kernels, main_loop
from wsdialects.transforms.schedule import SchedulePass

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kernels")
FA4 = os.path.join(EXAMPLES, "flash_attention_fa4.mlir")
FLASH = os.path.join(EXAMPLES, "flash_attention.mlir")


def loop_of(path):
    k = kernels(wsdialects.parse_file(path))[0]
    return k, main_loop(k)


# ------------------------------------------------------------------ the machine model

def test_b200_model_figures():
    m = load_machine("b200")
    assert m.tmem_capacity == 128 * 512 * 4  # lanes x columns x 32 bit
    assert m.result_memory("tile.dot") == "tmem" and "tile.dot" in m.single_thread_issue
    assert m.registers["threads_per_warp_group"] == 128
    assert {"TC", "TMA", "SFU", "ALU", "TMEM"} <= set(m.units)
    text = " ".join(m.data["description"])
    for source in ("PTX ISA", "Programming Guide", "FlashAttention-4", "Twill", "estimate"):
        assert source in text
    assert m.costs["tile.dot"]["per_cycle"] == 2 * load_machine("h100").costs["tile.dot"]["per_cycle"]


def test_accumulators_are_not_registers_and_reading_them_blocks():
    """On b200 the attention loop's dots hold tensor memory, not registers; a register op
    reads one through a tcgen05.ld that blocks on the MMA; P and the rescaled O reach the
    P.V MMA through tcgen05.st, which the MMA blocks on. h100's graph has none of these."""
    k, loop = loop_of(FLASH)
    g = graph_of_loop(k, loop, "b200").graph
    h = graph_of_loop(k, loop, "h100").graph
    dots = [op for op in g.ops if op.kind == "tile.dot"]
    assert dots and all(op.regs == 0 and op.tmem == 128 * 128 * 4 and op.single_thread for op in dots)
    assert all(op.regs > 0 for op in h.ops if op.kind == "tile.dot")
    loads = [op for op in g.ops if op.kind == "tcgen05.ld"]
    stores = [op for op in g.ops if op.kind == "tcgen05.st"]
    assert len(loads) == 2 and len(stores) == 2  # S and O read; P and O rescaled written
    assert all(op.regs == 128 and op.uses == {"TMEM": [1] * 128} for op in loads)
    for ld in loads:
        (e,) = g.preds(ld.name)
        assert g.op(e.src).kind == "tile.dot" and e.blocking and e.delay == g.op(e.src).cycles
    for st in stores:
        assert all(e.blocking and g.op(e.dst).kind == "tile.dot" for e in g.succs(st.name))
    assert g.warps.issuer and g.tmem_capacity == 262144
    assert not h.warps.issuer and h.tmem_capacity is None
    assert not any(op.kind and op.kind.startswith("tcgen05") for op in h.ops)


def test_graph_json_keys_round_trip_and_are_checked():
    raw = {"units": {"TC": 1}, "warps": {"count": 1, "issuer": True}, "tmem_capacity": 100,
           "ops": [{"name": "a", "uses": {"TC": [1]}, "single_thread": True, "tmem": 64}]}
    g = graph_from_dict(raw)
    assert g.to_dict()["ops"][0]["single_thread"] and g.to_dict()["warps"]["issuer"]
    assert graph_from_dict(g.to_dict()).to_dict() == g.to_dict()
    for bad in ({"single_thread": 1}, {"tmem": -1}):
        with pytest.raises(GraphError):
            graph_from_dict({**raw, "ops": [{**raw["ops"][0], **bad}]})


def _two_mmas(tmem_capacity):
    """Two independent MMAs per iteration whose results (60 bytes each of tensor memory)
    live 4 cycles until a register op reads them."""
    ops = [{"name": "m1", "uses": {"TC": [1, 1]}, "single_thread": True, "tmem": 60},
           {"name": "m2", "uses": {"TC": [1, 1]}, "single_thread": True, "tmem": 60},
           {"name": "r1", "uses": {"ALU": [1]}}, {"name": "r2", "uses": {"ALU": [1]}}]
    edges = [{"from": "m1", "to": "r1", "delay": 4, "blocking": True},
             {"from": "m2", "to": "r2", "delay": 4, "blocking": True}]
    return graph_from_dict({"units": {"TC": 1, "ALU": 1}, "ops": ops, "edges": edges,
                            "warps": {"count": 1, "issuer": True}, "tmem_capacity": tmem_capacity})


def test_issuer_warp_takes_the_mmas_and_tensor_memory_is_a_capacity():
    s = twill(_two_mmas(None), time_limit=30)
    assert s.issuer_warp == 1 and {s.ops["m1"].warp, s.ops["m2"].warp} == {1}
    assert {s.ops["r1"].warp, s.ops["r2"].warp} == {0}
    assert s.ii == 4  # the TC: two MMAs of 2 cycles
    # Room for one result at a time: their lifetimes (at least 4 of the II's cycles each) cannot overlap.
    tight = twill(_two_mmas(100), time_limit=30)
    assert tight.ii > s.ii


# ------------------------------------------------------------------ FA4's forward

def test_fa4_kernel_matches_numpy():
    rng = np.random.default_rng(41)
    L, BH, D = 256 + 128, 2, 128  # two programs, the second with one sub-tile past L
    q, k, v = (rng.standard_normal((BH, L, D)).astype(np.float16) for _ in range(3))
    o = np.full((BH, L, D), np.nan, np.float16)
    m = wsdialects.parse_file(FA4)
    wsdialects.interpret(m, "flash_attention_fa4", grid=(-(-L // 256), BH), args=[q, k, v, o, L, float(D ** -0.5)])
    assert not np.isnan(o.astype(np.float32)).any()
    s = np.einsum("bld,bmd->blm", q.astype(np.float64), k.astype(np.float64)) / np.sqrt(D)
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    assert np.linalg.norm(o.astype(np.float64) - ref) / np.linalg.norm(ref) < 2e-3


@pytest.fixture(scope="module")
def fa4_b200():
    pytest.importorskip("ortools")
    k, loop = loop_of(FA4)
    t = time.perf_counter()
    lg, graph, sched = SchedulePass(arch="b200").choose(k, loop)
    return lg, graph, sched, time.perf_counter() - t


def _overlaps(graph, sched, a, b):
    """Whether ops a and b occupy their units in a common cycle of the steady state."""
    ii = sched.ii

    def cycles(n):
        return {(sched.ops[n].start + c) % ii for c in range(graph.op(n).length)}
    return bool(cycles(a) & cycles(b))


def test_fa4_strategy_on_b200(fa4_b200):
    """FA4's warp roles (Twill Fig. 9): TMA loads and MMAs on warps of their own, each
    sub-tile's softmax on its own warp group, the rescaling of both accumulators on a
    third; QK^T one stage ahead of P.V (hoisted into the prologue); one sub-tile's
    exponential while the tensor core runs the other sub-tile's GEMMs."""
    lg, g, s, seconds = fa4_b200
    w = {n: p.warp for n, p in s.ops.items()}
    assert not lg.pingpong and s.warp_count == 3
    assert {w["k"], w["v"]} == {s.vl_warp}
    assert {w[n] for n in ("s0", "s1", "o0", "o1")} == {s.issuer_warp}
    softmax = [{w[n] for n in (f"s{i}.ld", f"rowmax{i}", f"qk{i}", f"qk_c{i}", f"p{i}", f"l_ij{i}", f"pb{i}",
                                f"pb{i}.st")} for i in (0, 1)]
    assert all(len(x) == 1 for x in softmax) and softmax[0] != softmax[1]
    correction = {w[n] for i in (0, 1) for n in (f"o{i}.ld", f"acc_s{i}", f"acc_s{i}.st")}
    assert len(correction) == 1 and correction.isdisjoint(softmax[0] | softmax[1])
    for i in (0, 1):
        assert s.ops[f"s{i}"].stage < s.ops[f"o{i}"].stage  # the first GEMM hoisted
        other = 1 - i
        assert any(_overlaps(g, s, f"p{i}", f"{d}{other}") for d in ("s", "o"))
    assert s.ii <= s.res_mii + 1  # at the tensor core / SFU bound, or one unit above it
    assert seconds < 60  # Twill: 19 s (Yices, one core); recorded in docs/blackwell-schedules.md


def test_reading_an_accumulator_never_interrupts_an_exponential(fa4_b200):
    """A tcgen05.ld waits for an MMA, and a warp that waits issues nothing: where a load
    shares a warp group with an exponential (the softmax group loading its S), it issues
    outside the exponential's cycles; O's loads (waiting for the previous P.V) share none."""
    _, g, s, _ = fa4_b200
    exps = [op.name for op in g.ops if op.kind == "math.exp2" and op.length]
    for op in g.ops:
        if op.kind != "tcgen05.ld":
            continue
        beside = [p for p in exps if s.ops[p].warp == s.ops[op.name].warp]
        assert all((s.ops[op.name].start - s.ops[p].start) % s.ii >= g.op(p).length for p in beside)
        if g.preds(op.name)[0].distance == 0 and any(e.distance for e in g.succs(op.name)):
            assert not beside  # an accumulator carried to the next iteration: the correction group's


def test_hopper_passes_refuse_a_blackwell_schedule(fa4_b200):
    from wsdialects.tools.ws_opt import build_pipeline

    m = wsdialects.parse_file(FA4)
    build_pipeline("ws-schedule{arch=b200}", FA4).apply(None, m)
    info = main_loop(kernels(m)[0]).attributes["ws.schedule"].data
    assert info["issuer_warp"].value.data == 4 and info["vl_warp"].value.data == 3
    with pytest.raises(wsdialects.WsError, match="issuer warp .* a Blackwell schedule"):
        build_pipeline("ws-specialize", FA4).apply(None, m)


# ------------------------------------------------------------------ the backward (Twill §6.3)

BWD = os.path.join(EXAMPLES, "flash_attention_bwd.mlir")


def _bwd(arch, **options):
    pytest.importorskip("ortools")
    k, loop = loop_of(BWD)
    lg, g, s = SchedulePass(arch=arch, **options).choose(k, loop)
    return g, s, {n: p.warp for n, p in s.ops.items()}


def _kind_warps(g, s, kind):
    return {s.ops[op.name].warp for op in g.ops if op.kind == kind and op.length}


def test_backward_on_b200_is_bound_by_the_tma_unit_and_ping_pongs():
    """Five MMAs, an exponential and dQ's atomic add per iteration: on b200 the tensor core
    is no longer the bound, the TMA unit (Q, dO and the atomic add) is (Twill: 'renders the
    single-pass algorithm bandwidth-bound'). At the full budget (the kernel's two groups,
    240 registers) the two groups form a ping-pong team, each running the whole iteration
    on its half of the keys, one group's exponential during the other's MMAs and staging
    (Twill's strategy), at II = ResMII. U = 48: at b200's default 12 the five 64-cycle
    elementwise ops each round up to a unit and the ALU looks like the bound."""
    g, s, w = _bwd("b200", normalize=48)
    units = {u: sum(len(op.uses.get(u, ())) for op in g.ops) for u in g.units}
    assert s.res_mii == units["TMA"] == max(units.values()) > units["TC"]
    assert s.ii == s.res_mii
    assert g.warps.pingpong == 2 and s.warp_count == 1  # one team of the two groups, offset by II / 2
    assert {w["st"], w["dpt"], w["dqt_i"], w["dk_new"], w["dv_new"]} == {s.issuer_warp}


def test_backward_on_b200_under_a_reduced_budget_needs_a_third_group():
    """96 registers per thread: two groups cannot hold the loop at the full-budget II; with
    three, the II is back and the third group only stages dQ for the atomic reduction while
    the other two read S (and exponentiate) and dP (and form dS) from tensor memory: FA4's
    backward (Twill-LR). At U = 12 (seconds; at U = 48 the same roles take minutes:
    docs/blackwell-schedules.md)."""
    _, full, _ = _bwd("b200")
    _, two, _ = _bwd("b200", reg_limit=96)  # split or ping-pong, whichever is better
    g, s, w = _bwd("b200", reg_limit=96, warp_groups=3)  # three groups form no ping-pong team
    assert two.ii > full.ii and s.ii == full.ii
    assert len({w[n] for n in g.index if not g.op(n).variable_latency and not g.op(n).single_thread}) == 3
    staging = w["dqt_i.ld"]
    assert all(w[n] != staging for n in ("st.ld", "pt_all", "dpt.ld", "dst"))
    assert w["st.ld"] == w["pt_all"] and w["dpt.ld"] == w["dst"] and w["pt_all"] != w["dst"]


def test_backward_on_h100_is_ilp_within_an_iteration():
    """FA3's backward on Hopper (Twill §6.3.1): the MMAs and the exponential of one iteration
    overlap each other, but no iteration's softmax or dS waits for the next: every op but the
    accumulating MMAs (dK, dV) is in stage 0. At U = 300 the model is too large (the
    normalization keeps every distinct duration: II 240): the pass falls back with a remark,
    so this runs at U = 24."""
    g, s, w = _bwd("h100", normalize=24)
    late = {n for n, p in s.ops.items() if p.stage > 0 and not g.op(n).variable_latency and g.op(n).length}
    assert late <= {"dk_new", "dv_new"}
    assert len({w[n] for n in g.index if not g.op(n).variable_latency}) == 1  # one team of both groups
