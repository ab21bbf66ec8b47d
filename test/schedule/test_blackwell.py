"""The Blackwell machine model (machines/b200.json, tensor_memory.py, the issuer warp) and the
strategies ws-schedule{arch=b200} finds (Twill §6.2.2, §6.3.2): FA4's forward on
examples/kernels/flash_attention_fa4.mlir, asserted on the schedule's structure (which ops
share a warp group, stages, overlaps), not on exact numbers. The FA4 kernel is also
interpreted against numpy (it has no Hopper lowering of its own; that the Hopper passes refuse
its schedule, located, is checked by test/transforms/ws-schedule-b200.mlir)."""

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
    lg, graph, sched = SchedulePass(arch="b200", time_limit=300).choose(k, loop)  # ~20 s; loaded machines
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
    units = {u: sum(len(op.uses.get(u, ())) for op in g.ops) for u in g.units}
    assert s.ii == s.res_mii == max(units["TC"], units["SFU"]) > units["ALU"]  # the tensor core / SFU bound
    print(f"FA4 forward on b200: {seconds:.1f} s")  # Twill: 19 s (docs/blackwell-schedules.md)


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


# ------------------------------------------------------------------ the backward (Twill §6.3)

# the backward as first written in the TMA form, which these schedules were measured on (the bundled
# examples/kernels/flash_attention_bwd.mlir has moved on)
BWD = os.path.join(os.path.dirname(__file__), "..", "Inputs", "kernels", "flash_attention_bwd_tma_first.mlir")


def _bwd(arch, **options):
    pytest.importorskip("ortools")
    k, loop = loop_of(BWD)
    lg, g, s = SchedulePass(arch=arch, **options).choose(k, loop)
    return lg, g, s, {n: p.warp for n, p in s.ops.items()}


def _roles(g):
    """The backward's tile ops by what they do, found by kind and dependence (not by name):
    the exponential, the tensor-memory load of S feeding it, the load of dP, the load staging
    dQ^T for its reduction (its user is a variable-latency store or atomic)."""
    (exp,) = [op.name for op in g.ops if op.kind == "math.exp2" and op.length]
    loads = [op.name for op in g.ops if op.kind == "tcgen05.ld"]
    (staging,) = [n for n in loads if any(g.op(e.dst).variable_latency for e in g.succs(n))]

    def reaches(a, b, seen=()):
        return a == b or any(e.distance == 0 and e.dst not in seen and reaches(e.dst, b, (*seen, a))
                             for e in g.succs(a))
    (s_load,) = [n for n in loads if reaches(n, exp)]
    (dp_load,) = [n for n in loads if n not in (staging, s_load)]
    return exp, s_load, dp_load, staging


def test_backward_on_b200_at_the_full_budget_is_a_pingpong_of_two_groups():
    """Twill §6.3.2 at the full register budget: the kernel's two groups form one ping-pong
    team (each on its 64 of the 128 keys, offset by half the II): every member loads S from
    tensor memory and exponentiates, forms dP and dS, and loads its partial dQ^T (its MMA
    contracts the member's own keys) to stage it for the reduction; the MMAs on the issuer
    warp, the TMA on W_vl; the tensor core is the bound and the schedule reaches it. A member
    stages the reduction of the iteration before the one it exponentiates (a stage later), so
    the groups ping-pong between exponentials and staging. The one-row LSE and Delta tiles are
    held whole by each member (``machine.replicated``)."""
    lg, g, s, w = _bwd("b200", normalize=12)
    assert lg.pingpong and g.warps.pingpong == 2 and s.warp_count == 1
    units = {u: sum(len(op.uses.get(u, ())) * g.replicas(op.name) for op in g.ops) for u in g.units}
    assert s.ii == s.res_mii == units["TC"] == max(units.values())
    exp, s_load, dp_load, staging = _roles(g)
    assert w[exp] == w[s_load] == w[dp_load] == w[staging] != s.issuer_warp
    assert {w[op.name] for op in g.ops if op.kind == "tile.dot"} == {s.issuer_warp}
    assert {w[op.name] for op in g.ops if op.variable_latency} == {s.vl_warp}
    (qk,) = [e.src for e in g.preds(s_load)]
    assert s.ops[qk].stage == s.ops[exp].stage == 0 < s.ops[staging].stage


def test_a_team_splitting_a_contraction_needs_tensor_memory():
    """dQ^T = K^T dS^T contracts over the keys a team splits: on b200 each member's MMA sums
    its own keys into its own tensor-memory tile; on h100 the partial sums would be registers of
    two groups (ws-cooperative refuses such a dot), so neither a lockstep nor a ping-pong team is
    offered there, whatever the register need."""
    k, loop = loop_of(BWD)
    assert graph_of_loop(k, loop, "b200", pingpong=True) is not None
    assert graph_of_loop(k, loop, "h100", pingpong=True) is None
    assert graph_of_loop(k, loop, "h100").groups_per_warp == 1


def test_backward_on_b200_under_a_reduced_budget_needs_a_third_group():
    """96 registers per thread: two groups cannot hold the loop at the full-budget II; with
    three, the II is back, with FA4's roles: a group loads S and exponentiates, a group loads
    dP and forms dS, and the third only stages dQ^T for the reduction (Twill-LR). At U = 12
    (seconds; at U = 48 it takes minutes, docs/blackwell-schedules.md)."""
    _, _, full, _ = _bwd("b200", normalize=12)
    _, _, two, _ = _bwd("b200", normalize=12, reg_limit=96)  # split or ping-pong, whichever is better
    lg, g, s, w = _bwd("b200", normalize=12, reg_limit=96, warp_groups=3)  # three groups form no ping-pong team
    assert two.ii > full.ii and s.ii == full.ii and not lg.pingpong
    exp, s_load, dp_load, staging = _roles(g)
    assert len({w[exp], w[dp_load], w[staging]}) == 3 and w[s_load] == w[exp]
    busy = [op.name for op in g.ops if op.length and not op.variable_latency and not op.single_thread]
    assert [n for n in busy if w[n] == w[staging]] == [staging]  # the third group only stages


BWD_BF16 = os.path.join(os.path.dirname(__file__), "..", "Inputs", "kernels", "flash_attention_bwd_bf16.mlir")


def test_backward_on_h100_at_the_default_settings_is_fa3s():
    """FA3's backward on Hopper (Twill §6.3.1), found by ws-schedule{arch=h100} at its defaults
    (U = 300) on the bf16 d128 kernel: one chain per warp group (S^T, its exponential and dV's
    MMA on one; dP^T, dS^T, dK's and dQ^T's MMAs on the other), every compute op in stage 0
    but the accumulating dK: ILP within an iteration, none across.  Register-constrained: the II
    is above the tensor core's bound (at that bound no schedule fits the registers within the
    stages the modulo schedule needs).  The search's CP-SAT work is bounded (deterministic
    seconds: the same on every machine; docs/blackwell-schedules.md gives CPU times); the test's
    time limit is larger than the default only so that a loaded machine does not fail it."""
    pytest.importorskip("ortools")
    from wsdialects.schedule import solvers

    k, loop = loop_of(BWD_BF16)
    work = []
    real = solvers.CpSatBackend._run  # wrapped by hand, not by monkeypatch: the solve cache stays on

    def counted(self, *a, **kw):
        status = real(self, *a, **kw)
        work.append(self.solver.deterministic_time)
        return status
    solvers.CpSatBackend._run = counted
    try:
        lg, g, s = SchedulePass(arch="h100", time_limit=120).choose(k, loop)
    finally:
        solvers.CpSatBackend._run = real
    assert SchedulePass(arch="h100").limits() == (10, 300) and not lg.pingpong and lg.groups_per_warp == 1
    w = {n: p.warp for n, p in s.ops.items()}
    (exp,) = [op.name for op in g.ops if op.kind == "math.exp2" and op.length]
    dots = [op.name for op in g.ops if op.kind == "tile.dot"]
    accumulating = {e.dst for e in g.edges if e.src == e.dst and e.dst in dots}

    def upstream(n, seen=()):
        return {n}.union(*(upstream(e.src, (*seen, n)) for e in g.preds(n) if e.distance == 0 and e.src not in seen))
    (s_dot,) = [d for d in dots if d in upstream(exp)]
    (dv,) = [d for d in accumulating if upstream(d) & set(dots) == {s_dot, d}]  # P^T dO: S^T's dot alone before it
    (dk,) = accumulating - {dv}
    other = [d for d in dots if d not in (s_dot, dv)]  # dP^T, dK, dQ^T
    assert w[s_dot] == w[exp] == w[dv] != w[dk] and {w[d] for d in other} == {w[dk]}
    late = {n for n, p in s.ops.items() if p.stage > 0 and not g.op(n).variable_latency and g.op(n).length}
    assert late == {dk}
    assert s.ii > s.res_mii
    print(f"h100 backward at the defaults: {sum(work):.2f} deterministic s of CP-SAT work")
    assert sum(work) < 18.0, work  # deterministic seconds (14.1 when written; 35 before)
