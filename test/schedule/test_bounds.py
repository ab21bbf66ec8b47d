"""Bounded time and memory in the scheduler (issue 12, must-have 3), and the
ws-schedule command line's conventions (exit 0 / 1 / 2, flags, locations).

Each test stands for a failure the fuzzer found: a 120 s solve on
attention-like kernels, an O(n^3) cycle check, models that grew with II before
any limit was looked at (MemoryError, std::bad_alloc), JSON values that raised
TypeError / internal errors."""

import json
import os
import re
import time

import pytest

from schedule_helpers import LIT_DIR, fig1_graph
from wsdialects.schedule import GraphError, SolverTimeout, graph_from_dict
from wsdialects.schedule.bounds import MAX_TERMS, ModelTooLarge, model_terms
from wsdialects.schedule.graph import graph_from_json
from wsdialects.schedule.jsonpos import locate
from wsdialects.schedule.joint import twill
from wsdialects.schedule.normalize import normalize_costs
from wsdialects.schedule.solvers import make_backend
from wsdialects.tools.ws_schedule import main

REPO = os.path.join(os.path.dirname(__file__), "..", "..")
ATTENTION = os.path.join(REPO, "examples", "kernels", "attention.mlir")
D64 = os.path.join(REPO, "examples", "kernels", "flash_attention_d64.mlir")
# Slack for wall-clock checks on a loaded 2-core machine: the failures these
# tests guard against took minutes.
SLACK = 8.0


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(p)


# ----------------------------------------------------------------- JSON input

def _fig1(change):
    """Fig. 1's graph as indented JSON text, after ``change(graph_dict)``."""
    g = fig1_graph()
    change(g)
    return json.dumps(g, indent=1)


def _set(*path_value):
    *path, value = path_value

    def change(g):
        for key in path[:-1]:
            g = g[key]
        g[path[-1]] = value
    return change


BAD_JSON = {
    # name: (text, expected message); every one is located (FILE:LINE:COL)
    "above_int64": (_fig1(_set("edges", 0, "delay", 10**23)),
                    r"delay of edges\[0\] \(S -> P\) must be at most 2147483647"),
    "unhashable_from": (_fig1(_set("edges", 0, "from", ["S"])),
                        r"'from' of edges\[0\] must be an op name \(a string\), got \[\"S\"\]"),
    "unhashable_to": (_fig1(_set("edges", 0, "to", {"op": "P"})), r"'to' of edges\[0\] must be an op name"),
    "unknown_endpoint": (_fig1(_set("edges", 0, "to", "Q")), r"edges\[0\] refers to unknown op 'Q'"),
    "number_endpoint": (_fig1(_set("edges", 0, "to", 7)), r"'to' of edges\[0\] must be an op name"),
    "float_delay": (_fig1(_set("edges", 0, "delay", 1.5)), r"must be an integer, got 1.5"),
    "nan_delay": (_fig1(_set("edges", 0, "delay", float("nan"))), r"must be an integer, got NaN"),
    "string_capacity": (_fig1(_set("units", "TC", "1")), r"capacity of unit 'TC' must be an integer"),
    "list_uses": (_fig1(_set("ops", 0, "uses", [1])), r"'uses' of op 'S' must be an object"),
    "bool_name": (_fig1(_set("ops", 0, "name", True)), r"the name of ops\[0\] must be a non-empty string"),
    "huge_warps": (_fig1(_set("warps", {"count": 2**64})), r"warps.count must be at most"),
    "not_utf8": (json.dumps(fig1_graph()).encode().replace(b'"S"', b'"\xff"', 1), r"not UTF-8 text \(byte 0xff\)"),
    "deep": ("[" * 100000, r"invalid JSON"),
}


@pytest.mark.parametrize("kind", sorted(BAD_JSON))
def test_bad_json_is_a_located_user_error(kind, tmp_path, capsys):
    text, pattern = BAD_JSON[kind]
    path = write(tmp_path, f"{kind}.json", text)
    assert main([path]) == 1
    err = capsys.readouterr().err
    assert re.match(re.escape(path) + r":\d+:\d+: error: ", err), err
    assert re.search(pattern, err), err
    assert "internal error" not in err and "Traceback" not in err


def test_error_location_is_the_member():
    text = '{"units": {"TC": 1},\n "ops": [{"name": "S"}],\n "edges": [{"from": "S",\n   "to": "Q", "delay": 1}]}'
    with pytest.raises(GraphError) as info:
        graph_from_json(text)
    assert (info.value.line, info.value.col) == (4, 4)  # the "to" key of edges[0]
    assert locate(text, ("edges", 0, "delay")) == (4, 15)
    assert locate(text, ("ops", 0)) == (2, 10)
    assert locate(text, ("nowhere", 3)) == (1, 1)  # the closest enclosing member: the document


# ----------------------------------------------------------------- linear cycle check

def _chain(n, back_delay, back_distance):
    ops = [{"name": f"v{i}", "uses": {"TC": [1]}} for i in range(n)]
    edges = [{"from": f"v{i}", "to": f"v{i + 1}", "delay": 1} for i in range(n - 1)]
    edges.append({"from": f"v{n - 1}", "to": "v0", "delay": back_delay, "distance": back_distance})
    return {"units": {"TC": 1}, "ops": ops, "edges": edges}


def test_cycle_check_is_linear():
    """1,000 ops in one zero-distance cycle (the old Floyd-Warshall check was
    O(n^3): 1,500 ops took over 150 s)."""
    t = time.perf_counter()
    with pytest.raises(GraphError, match="iteration distance 0 and positive delay"):
        graph_from_dict(_chain(1000, 1, 0))
    graph_from_dict(_chain(1000, 1, 1))  # the same cycle carried to the next iteration is fine
    assert time.perf_counter() - t < 2.0


def test_zero_delay_cycle_is_allowed_and_self_loops_are_checked():
    g = fig1_graph(edges=[{"from": "S", "to": "P", "delay": 0}, {"from": "P", "to": "S", "delay": 0}])
    graph_from_dict(g)
    with pytest.raises(GraphError, match="through op 'S'"):
        graph_from_dict(fig1_graph(edges=[{"from": "S", "to": "S", "delay": 1}]))


def test_too_many_ops_is_refused():
    g = {"units": {"TC": 1}, "ops": [{"name": f"v{i}"} for i in range(1001)]}
    with pytest.raises(GraphError, match="at most 1000"):
        graph_from_dict(g)


# ----------------------------------------------------------------- model size

@pytest.fixture
def no_models(monkeypatch):
    """Fail if any solver model is built."""
    import wsdialects.schedule.joint as joint
    import wsdialects.schedule.modulo as modulo

    def refuse(*a, **k):
        raise AssertionError("a model was built")
    monkeypatch.setattr(modulo, "make_backend", refuse)
    monkeypatch.setattr(joint, "make_backend", refuse)


@pytest.mark.parametrize("what", ["delay", "reservation", "warps"])
def test_model_size_is_refused_before_building(what, no_models):
    g = fig1_graph()
    if what == "delay":  # RecMII 1e9 + 1
        g["edges"] = [{"from": "S", "to": "P", "delay": 10**9}, {"from": "P", "to": "S", "delay": 1, "distance": 1}]
    elif what == "reservation":  # ResMII 3e4: about 9e8 terms (a list of 3e6 took 1.4 s to read)
        g["ops"][0]["uses"] = {"TC": [1] * 30_000}
    else:
        g["warps"] = {"count": 10**6}
    graph = graph_from_dict(g)
    t = time.perf_counter()
    with pytest.raises(ModelTooLarge, match=f"above the limit of {MAX_TERMS}") as info:
        twill(graph, time_limit=60)
    assert time.perf_counter() - t < 5.0
    assert info.value.path is not None  # located at the member that makes it large


def test_model_terms_estimate_brackets_attention():
    """The limit is far above what real kernels need (attention at its II)."""
    from wsdialects.schedule.from_ir import graph_from_file
    from wsdialects.schedule.normalize import normalize_graph

    g = normalize_graph(graph_from_file(ATTENTION, "h100"), 300)
    assert model_terms(g, 22, 3) * 10 < MAX_TERMS


def test_normalization_of_many_distinct_values_is_bounded():
    costs = list(range(1, 400))
    t = time.perf_counter()
    new = normalize_costs(costs, 300)
    assert time.perf_counter() - t < 2.0
    assert sum(new) <= 300 and all(a <= b for a, b in zip(new, new[1:]))
    with pytest.raises(ValueError, match="between 1 and"):
        normalize_costs([1, 2], 10**9)


# ----------------------------------------------------------------- time limits

def _d64_graph():
    from wsdialects.schedule.from_ir import graph_from_file
    from wsdialects.schedule.normalize import normalize_graph

    return normalize_graph(graph_from_file(D64, "h100"), 300)


@pytest.mark.parametrize("solver", ["cpsat", "z3"])
def test_time_limit_is_honoured_inside_the_solve(solver):
    """flash_attention_d64 is not solved in a minute: a 0.5 s limit stops the
    search in about half a second (each solve gets the time left as its own limit)."""
    g = _d64_graph()
    t = time.perf_counter()
    with pytest.raises(SolverTimeout):
        twill(g, solver=solver, time_limit=0.5)
    assert time.perf_counter() - t < 0.5 + SLACK


@pytest.mark.parametrize("solver", ["cpsat", "z3"])
def test_building_a_model_stops_at_the_deadline(solver):
    b = make_backend(solver, deadline=time.monotonic() - 1)
    with pytest.raises(SolverTimeout, match="while the model was being built"):
        for i in range(5000):
            b.bool(f"x{i}")


VARIANTS = {  # the attention-like kernels that took 120 s
    "one_group": lambda t: t.replace("tile.num_warps = 8", "tile.num_warps = 4"),
    "tiles_192": lambda t: t.replace("128", "192"),
    "tiles_32": lambda t: t.replace("128", "32"),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_attention_variants_finish_within_the_limit(variant, capsys):
    import wsdialects
    from wsdialects.transforms.schedule import SchedulePass

    module = wsdialects.parse(VARIANTS[variant](open(ATTENTION).read()), f"{variant}.mlir")
    t = time.perf_counter()
    SchedulePass(time_limit=0.5).apply(None, module)  # each falls back at 0.5 s as at 2 s (the search runs out)
    assert time.perf_counter() - t < 0.5 + SLACK
    scheduled = "ws.schedule" in str(module)
    err = capsys.readouterr().err
    assert scheduled or re.search(rf"{variant}.mlir:\d+:\d+: remark: ws-schedule: .*falling back to the "
                                  r"heuristic pipeline", err), err


def test_default_time_limit_fits_a_compile():
    from wsdialects.transforms.schedule import SchedulePass

    assert SchedulePass().limits()[0] <= 10  # h100, the compile pipeline's machine


# ----------------------------------------------------------------- CLI conventions

def test_cli_usage_errors_exit_1(capsys):
    assert main(["--bogus"]) == 1
    assert main([os.path.join(LIT_DIR, "fig1.json"), "--solver", "yices"]) == 1
    err = capsys.readouterr().err
    assert err.count("ws-schedule: error:") == 2 and "; see ws-schedule --help" in err


def test_cli_internal_error_exits_2(monkeypatch, capsys):
    import wsdialects.schedule.joint as joint

    def broken(*a, **k):
        raise ZeroDivisionError("a defect")
    monkeypatch.setattr(joint, "twill", broken)
    monkeypatch.delenv("WS_OPT_TRACEBACK", raising=False)
    assert main([os.path.join(LIT_DIR, "fig1.json")]) == 2
    err = capsys.readouterr().err
    assert "ws-schedule: internal error: ZeroDivisionError: a defect" in err and "Traceback" not in err


def test_cli_output_flags_and_version(tmp_path, capsys):
    for flag in ("-o", "--output-file", "--output"):
        out = str(tmp_path / f"{flag.strip('-')}.json")
        assert main([os.path.join(LIT_DIR, "fig1.json"), flag, out]) == 0
        assert json.load(open(out))["II"] == 2
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("ws-schedule (wsdialects)")


def test_cli_kernel_errors_are_located_once(tmp_path, capsys):
    text = open(ATTENTION).read().replace("%kt = \"tile.trans\"", "%kt = \"tile.transs\"")
    path = write(tmp_path, "k.mlir", text)
    assert main([path]) == 1
    err = capsys.readouterr().err.strip()
    assert re.match(re.escape(path) + r":\d+:\d+: error: ", err), err
    assert err.count("error:") == 1  # not `k.mlir: error: k.mlir:19:5: error: ...`


def test_cli_time_limit_covers_the_whole_run(capsys):
    t = time.perf_counter()
    assert main([D64, "--time-limit", "0.5"]) == 1
    assert time.perf_counter() - t < 0.5 + SLACK
    assert "error: solver gave up" in capsys.readouterr().err
