"""The solver-free infeasibility proof of the joint problem (warp_bound), the stage
window and the fast run of feasibility queries: never wrong, and they save solver work."""

import json
import math
import random

import pytest

from wsdialects.schedule import graph_from_dict
from wsdialects.schedule.joint import joint_schedule, stage_window
from wsdialects.schedule.modulo import critical_length, least_length, rec_mii, res_mii, streaming_view
from wsdialects.schedule.warp_bound import joint_bound


def random_joint_graph(seed):
    """A few fixed-latency ops on two warps (blocking edges, spill costs, long
    reservations) and a TMA load, as the IR hand-off builds them."""
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    units = {"TC": 1, "ALU": 1, "TMA": 1}
    ops = [{"name": "ld", "uses": {"TMA": [1] * rng.randint(1, 3)}, "variable_latency": True}]
    for i in range(n):
        unit = rng.choice(["TC", "ALU"])
        op = {"name": f"v{i}", "uses": {unit: [1] * rng.randint(1, 4)}, "spill_cost": rng.choice([0, 0, 2, 5])}
        if rng.random() < 0.4:
            op["latency"] = len(op["uses"][unit]) + rng.randint(0, 3)
        ops.append(op)
    edges = [{"from": "ld", "to": "v0", "delay": 0, "blocking": True}]
    for i in range(1, n):
        a = rng.randrange(i)
        edges.append({"from": f"v{a}", "to": f"v{i}", "delay": rng.randint(0, 4), "blocking": rng.random() < 0.4})
    for _ in range(rng.randint(0, 2)):
        a, b = rng.randrange(n), rng.randrange(n)
        edges.append({"from": f"v{a}", "to": f"v{b}", "delay": rng.randint(0, 3), "distance": 1,
                      "blocking": rng.random() < 0.3})
    warps = {"count": rng.choice([1, 2]), "local_recurrences": rng.random() < 0.5}
    return {"units": units, "ops": ops, "edges": edges, "warps": warps}


@pytest.mark.parametrize("seed", range(40))
def test_bound_never_refutes_a_feasible_query(seed):
    """Wherever the bound says no schedule exists, the solver finds none either."""
    g = streaming_view(graph_from_dict(random_joint_graph(seed)))
    lo = max(res_mii(g), rec_mii(g))
    for ii in range(lo, lo + 4):
        crit = critical_length(g, ii)
        for length in (crit, math.ceil(crit / ii) * ii, crit + ii):
            if joint_bound(g, ii, length) is not None:
                assert joint_schedule(g, ii, length, time_limit=60) is None, (ii, length)


def test_bound_counts_blocking_residues():
    """One warp: an op issuing for 6 cycles and three blocking ops that cannot share a residue
    need II >= 9 (an op's latency beyond its issue does not hold the warp: the same op with no
    unit time and latency 6 leaves II 4 possible)."""
    g = graph_from_dict({
        "units": {"A": 1, "B": 1, "C": 1},
        "ops": [{"name": "ld", "uses": {"B": [1]}, "variable_latency": True},
                {"name": "x", "uses": {"A": [1]}}, {"name": "y", "uses": {"A": [1]}},
                {"name": "z", "uses": {"A": [1]}}, {"name": "e", "uses": {"C": [1] * 6}}],
        "edges": [{"from": "ld", "to": n, "delay": 0, "blocking": True} for n in "xyz"]})
    g = streaming_view(g)
    assert joint_bound(g, 8, 40) is not None and joint_bound(g, 9, 40) is None
    assert joint_schedule(g, 8, 40) is None and joint_schedule(g, 9, 40) is not None
    latent = graph_from_dict({**json.loads(json.dumps(g.to_dict())),
                              "ops": [*g.to_dict()["ops"][:4], {"name": "e", "uses": {}, "latency": 6}]})
    assert joint_bound(latent, 4, 40) is None and joint_schedule(latent, 4, 40) is not None


def test_bound_proves_something_on_the_random_graphs():
    """Not vacuous: on the graphs above it refutes some of the queries (28 of 480)."""
    fired = 0
    for seed in range(40):
        g = streaming_view(graph_from_dict(random_joint_graph(seed)))
        lo = max(res_mii(g), rec_mii(g))
        for ii in range(lo, lo + 4):
            crit = critical_length(g, ii)
            fired += sum(joint_bound(g, ii, length) is not None
                         for length in (crit, math.ceil(crit / ii) * ii, crit + ii))
    assert fired >= 10


def random_attention_graph(seed):
    """Attention-like graphs: a long exponential on its own unit, asynchronous dots
    that block on two streaming loads, spill costs, two compute warps: where
    warp_bound's issue-window rounding and unit clashes matter."""
    rng = random.Random(seed)
    n = rng.randint(4, 7)
    ops = [{"name": "ld", "uses": {"TMA": [1] * rng.randint(1, 4)}, "variable_latency": True},
           {"name": "ld2", "uses": {"TMA": [1] * rng.randint(1, 4)}, "variable_latency": True}]
    for i in range(n):
        unit = rng.choice(["TC", "ALU", "ALU", "SFU"])
        op = {"name": f"v{i}", "uses": {unit: [1] * rng.randint(1, 9 if unit == "SFU" else 3)},
              "spill_cost": rng.choice([0, 2, 4, 8])}
        if unit == "TC":
            op["latency"] = len(op["uses"][unit]) + rng.randint(0, 3)
        ops.append(op)
    edges = [{"from": "ld", "to": "v0", "delay": 0, "blocking": True},
             {"from": "ld2", "to": f"v{n - 1}", "delay": 0, "blocking": True}]
    for i in range(1, n):
        edges.append({"from": f"v{rng.randrange(i)}", "to": f"v{i}", "delay": rng.randint(0, 4),
                      "blocking": rng.random() < 0.4})
    for _ in range(rng.randint(0, 2)):
        a, b = rng.randrange(n), rng.randrange(n)
        edges.append({"from": f"v{a}", "to": f"v{b}", "delay": rng.randint(0, 3), "distance": 1,
                      "blocking": rng.random() < 0.3})
    return {"units": {"TC": 1, "ALU": 1, "SFU": 1, "TMA": 1}, "ops": ops, "edges": edges,
            "warps": {"count": 2, "local_recurrences": rng.random() < 0.5}}


def _queries(graph, extra=1):
    """(II, L) queries around the optimum: the first IIs, lengths from the critical path."""
    g = streaming_view(graph_from_dict(graph))
    lo = max(res_mii(g), rec_mii(g))
    for ii in range(lo, lo + 4 + extra):
        crit = critical_length(g, ii)
        for length in (crit, math.ceil(crit / ii) * ii, crit + ii, crit + 2 * ii)[:3 + extra]:
            yield g, ii, length


@pytest.mark.parametrize("seed", range(60))
def test_bound_never_refutes_a_feasible_attention_like_query(seed):
    """The issue-window rounding and the unit clashes of pinned ops are proofs too."""
    for g, ii, length in _queries(random_attention_graph(seed)):
        if joint_bound(g, ii, length) is not None:
            assert joint_schedule(g, ii, length, time_limit=60) is None, (ii, length)


@pytest.mark.parametrize("seed", range(30))
def test_stage_window_is_algorithm_1s_largest_length(seed):
    """stage_window's l_max is ceil(Len(M)/II)*II, Len(M) from the plain optimization;
    the M it returns is as short, and a refutation it returns is the bound's at a
    length of at least l_max."""
    from wsdialects.schedule.bounds import Deadline

    g = streaming_view(graph_from_dict(random_attention_graph(seed) if seed % 2 else random_joint_graph(seed)))
    lo = max(res_mii(g), rec_mii(g))
    for ii in range(lo, lo + 3):
        ms = least_length(g, ii, "cpsat", Deadline(60))
        length, window_ms, reason = stage_window(g, ii, "cpsat", Deadline(60))
        l_max = None if ms is None else math.ceil(ms.length / ii) * ii
        if window_ms is not None:
            assert (length, window_ms.length, reason) == (l_max, ms.length, None), ii
        elif reason is not None:  # refuted at a length from l_max up
            assert length >= l_max and reason == joint_bound(g, ii, length), ii
        else:
            assert ms is None, ii


def _attention_graph(pingpong, kernel="flash_attention"):
    import wsdialects
    from wsdialects.schedule.from_ir import graph_of_loop
    from wsdialects.schedule.normalize import normalize_graphs
    from wsdialects.transforms.partition import kernels, main_loop

    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    module = wsdialects.parse_file(root / "examples" / "kernels" / f"{kernel}.mlir")
    kernel = next(iter(kernels(module)))
    loop = main_loop(kernel)
    # both organisations normalized with one cost map, as ws-schedule does (a kernel
    # whose groups cannot form a ping-pong team has the split one only)
    organisations = [graph_of_loop(kernel, loop, "h100", pingpong=True), graph_of_loop(kernel, loop, "h100")]
    graphs = normalize_graphs([lg.graph for lg in organisations if lg is not None], 300, time_limit=10)
    return streaming_view(graphs[0 if pingpong else -1])


@pytest.mark.parametrize("pingpong", [True, False], ids=["pingpong", "split"])
def test_retargeted_joint_model_is_the_model_built_for_that_length(pingpong):
    """Algorithm 1's length search moves one model from length to length: it must be
    exactly the model a fresh build gives (same proto, so the same solution)."""
    pytest.importorskip("ortools")
    from wsdialects.schedule.joint import JointModel
    from wsdialects.schedule.solvers import make_backend

    g = _attention_graph(pingpong)
    moved = JointModel(g, 32, 64, make_backend("cpsat"))
    moved.b.hint(moved.k[g.ops[0].name], 1)
    moved.retarget(49)
    fresh = JointModel(g, 32, 49, make_backend("cpsat"))
    assert str(moved.b.model.Proto()) == str(fresh.b.model.Proto())
    moved.retarget(3)  # below an op's cycles: no schedule, as for a fresh model
    assert not moved.feasible_bounds and not JointModel(g, 32, 3, make_backend("cpsat")).feasible_bounds


def test_length_search_builds_one_joint_model_per_ii(monkeypatch):
    """Deterministic measure of the saving: flash attention's ping-pong team at II 32
    builds one joint model (without its memory constraints for the relaxed query, then with
    them: M's starts pinned, then freed for the length search and its probes) instead of
    one per query, and every feasibility query is settled by the fast run (no
    in-processing): its solution is used as it is."""
    pytest.importorskip("ortools")
    from wsdialects.schedule import joint, solvers

    built, runs = [], []
    real_init, real_run = joint.JointModel.__init__, solvers.CpSatBackend._run
    monkeypatch.setattr(joint.JointModel, "__init__",
                        lambda self, *a, **k: (built.append(a[2]), real_init(self, *a, **k))[1])
    monkeypatch.setattr(solvers.CpSatBackend, "_run",
                        lambda self, t, w, fast, **kw: (runs.append((self.model.HasObjective(), fast)),
                                                        real_run(self, t, w, fast, **kw))[1])
    sched = joint.twill(_attention_graph(True), time_limit=120, min_ii=32, max_ii=32)
    assert (sched.ii, sched.length) == (32, 50)
    assert len(built) == 1
    feasibility = [fast for objective, fast in runs if not objective]
    # relaxed, modulo starts fixed (unsat), Len(M) = 34 (unsat), Len(M) + 1 (unsat), l_max = 64
    # (sat), 49 (unsat): each one fast run (M itself was searched within 2 IIs: no window query)
    assert feasibility == [True] * 6
    assert [(a["L"], a["joint"]) for a in sched.attempts] == [(34, "unsat"), (35, "unsat"), (49, "unsat"),
                                                               (50, "sat")]


def test_pinned_then_freed_joint_model_is_the_model_built_for_its_length():
    """The query with M's starts pinned (by their domains) and the length search share one
    model: pinned, it admits those starts only; freed again, it is exactly a fresh build's proto."""
    pytest.importorskip("ortools")
    from wsdialects.schedule.bounds import Deadline
    from wsdialects.schedule.joint import JointModel, solve_joint
    from wsdialects.schedule.solvers import make_backend

    g = _attention_graph(True)
    m = JointModel(g, 32, 64, make_backend("cpsat"))
    found = solve_joint(m, Deadline(60))
    assert found is not None
    m.fix_starts(found[0])
    assert solve_joint(m, Deadline(60))[0] == found[0]
    late = dict(found[0])
    late[g.ops[-1].name] += 1  # one op a cycle later: that exact schedule or none
    m.fix_starts(late)
    again = solve_joint(m, Deadline(60))
    assert again is None or again[0] == late
    m.fix_starts(None)
    assert str(m.b.model.Proto()) == str(JointModel(g, 32, 64, make_backend("cpsat")).b.model.Proto())


@pytest.mark.parametrize("kernel,pingpong,ii,length", [
    ("flash_attention", True, 32, 50), ("flash_attention_d64", True, 36, 56), ("flash_attention_d256", False, 64, 55)])
def test_bound_never_refutes_a_bundled_optimum(kernel, pingpong, ii, length):
    """At the (II, L) the solver finds for a bundled kernel the bound proves nothing."""
    assert joint_bound(_attention_graph(pingpong, kernel), ii, length) is None


def test_flash_attention_d64_search_is_cheap(monkeypatch):
    """Deterministic measure of the slowest bundled kernel (flash attention, head dim 64:
    it fell back to the heuristic at the 10 s limit): the split organisation is refuted
    without the solver at II 32-35 (it used to spend a capped second of CP-SAT work on
    each of 34 and 35, and needs 47 s to prove 34 otherwise), every feasibility query is
    settled by the fast run, and the whole search stays within a few deterministic
    seconds of CP-SAT work (2.5 when written)."""
    pytest.importorskip("ortools")
    from wsdialects.schedule import joint, solvers
    from wsdialects.schedule.bounds import Deadline

    split = _attention_graph(False, "flash_attention_d64")
    for ii in range(32, 36):
        l_max, ms, reason = stage_window(split, ii, "cpsat", Deadline(60))
        assert ms is None and reason is not None, ii  # refuted, M never computed

    runs = []
    real_run = solvers.CpSatBackend._run

    def run(self, t, w, fast, **kw):
        status = real_run(self, t, w, fast, **kw)
        runs.append((self.model.HasObjective(), fast, self.solver.deterministic_time))
        return status

    monkeypatch.setattr(solvers.CpSatBackend, "_run", run)
    chosen, sched = joint.twill_among([_attention_graph(True, "flash_attention_d64"), split], time_limit=120)
    assert (chosen, sched.ii, sched.length) == (0, 36, 56)
    assert all(fast for objective, fast, _ in runs if not objective)
    assert sum(work for _, _, work in runs) < 6.0, runs
    assert len(runs) <= 30, len(runs)
    # streaming loads (no incoming dependence) are reported at stage 0
    assert all(sched.ops[op.name].stage == 0 for op in split.ops if split.is_streaming(op.name))


def random_memory_graph(seed):
    """random_joint_graph's ops holding registers, on two warps with a register limit."""
    graph = random_joint_graph(seed)
    rng = random.Random(1000 + seed)
    for op in graph["ops"]:
        op["regs"] = rng.choice([0, 8, 16, 32])
    graph["warps"].update(count=2, reg_limit=rng.choice([32, 48, 64]))
    return graph


@pytest.mark.parametrize("seed", [5, 10, 13])
def test_early_query_at_l_max_changes_no_answer(seed):
    """Where the schedule without memory limits overfills them (memory_fits, checked against
    the joint model with that schedule pinned), Algorithm 1's length scan asks the fast run
    of its query at l_max right after Len(M): the attempts it records and the schedule it
    finds are the plain scan's.  Seeds where that query says no (the queries below l_max
    are skipped: 10 at II 5 and 6) and yes (its answer kept for the scan: 5 at II 8, 13 at 10)."""
    pytest.importorskip("ortools")
    from wsdialects.schedule.bounds import Deadline
    from wsdialects.schedule.carried import memory_fits
    from wsdialects.schedule.joint import JointModel, _least_joint_length, solve_joint
    from wsdialects.schedule.modulo import latest_starts
    from wsdialects.schedule.solvers import make_backend

    g = streaming_view(graph_from_dict(random_memory_graph(seed)))
    lo = max(res_mii(g), rec_mii(g))
    overfilled = 0
    for ii in range(lo, lo + 3):
        l_max, ms, _ = stage_window(g, ii, "cpsat", Deadline(60))
        relaxed = ms and solve_joint(JointModel(g, ii, l_max, make_backend("cpsat"), memory=False), Deadline(60),
                                     ms.starts)
        if relaxed is None:
            continue
        pinned = JointModel(g, ii, l_max, make_backend("cpsat"), fixed_starts=relaxed[0])
        for v, w in relaxed[1].items():
            pinned.b.add([(1, pinned.opw[v][w])], lo=1)
        fits = memory_fits(g, ii, *relaxed)
        assert fits == (solve_joint(pinned, Deadline(60)) is not None), ii
        if fits:
            continue
        overfilled += 1
        ms = latest_starts(g, ii, ms, "cpsat", Deadline(60))
        out = []
        for early in (False, True):
            attempts = []
            model = JointModel(g, ii, ms.length, make_backend("cpsat"))
            _, found = _least_joint_length(g, ii, ms, l_max, "cpsat", Deadline(60), attempts, model, early)
            out.append((attempts, found))
        assert out[0] == out[1], ii
    assert overfilled


def test_start_windows_are_on_only_for_the_standard_run():
    """The start windows (longest paths from cycle 0 and to the end) tighten a joint model for
    the solver's standard run and come off again: the proto is then a fresh build's, so the
    fast runs ask the model as it always was.  They exclude no schedule (flash attention's
    optimum stays feasible with them on), and an empty window says there is none."""
    pytest.importorskip("ortools")
    from wsdialects.schedule.bounds import Deadline
    from wsdialects.schedule.joint import JointModel, solve_joint
    from wsdialects.schedule.solvers import make_backend

    g = _attention_graph(True)
    m = JointModel(g, 32, 50, make_backend("cpsat"))
    fresh = str(m.b.model.Proto())
    assert m.tighten(True) and str(m.b.model.Proto()) != fresh
    assert solve_joint(m, Deadline(60), skip_fast=True) is not None  # (it puts them on and off itself)
    m.tighten(False)
    assert str(m.b.model.Proto()) == fresh
    m.retarget(3)
    assert not m.tighten(True)
    m.tighten(False)
