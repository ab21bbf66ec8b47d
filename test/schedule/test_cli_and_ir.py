"""ws-schedule CLI (valid graph, diagnostics, SVGs), cost normalization, graphs from IR."""

import json
import os
import xml.etree.ElementTree as ET

import pytest

from schedule_helpers import LIT_DIR, fig1_graph
from wsdialects.schedule.normalize import normalize_costs, normalize_graph
from wsdialects.schedule import graph_from_dict
from wsdialects.tools.ws_schedule import main

# The bundled copy of shared/kernels/attention.mlir (test/python/test_examples.py keeps them equal).
ATTENTION = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kernels", "attention.mlir")


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_cli_valid_graph_and_svgs(tmp_path, capsys):
    g, gantt = str(tmp_path / "g.svg"), str(tmp_path / "gantt.svg")
    rc = main([os.path.join(LIT_DIR, "fig1.json"), "--svg-graph", g, "--svg-gantt", gantt])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["II"] == 2 and set(out["ops"]) == {"S", "P", "O"}
    assert {"start", "stage", "warp"} <= set(out["ops"]["P"])
    assert isinstance(out["solve_seconds"], float)
    for path in (g, gantt):
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
        assert "S" in texts and "P" in texts


def test_cli_output_file_and_z3(tmp_path, capsys):
    out = str(tmp_path / "o.json")
    assert main([os.path.join(LIT_DIR, "fig1.json"), "--solver", "z3", "-o", out]) == 0
    assert json.load(open(out))["II"] == 2


BAD = {
    "syntax": ('{"units": {"TC": 1},\n  "ops": [,]}', r":2:\d+: error: invalid JSON"),
    "unknown_op": (json.dumps(fig1_graph(edges=[{"from": "S", "to": "Q", "delay": 1}])), "unknown op 'Q'"),
    "negative_delay": (json.dumps(fig1_graph(edges=[{"from": "S", "to": "P", "delay": -1}])), "delay .* must be >= 0"),
    "unknown_unit": (json.dumps(fig1_graph(ops=[{"name": "S", "uses": {"XU": [1]}}], edges=[])), "unknown unit 'XU'"),
    "over_capacity": (json.dumps(fig1_graph(ops=[{"name": "S", "uses": {"TC": [2]}}], edges=[])), "capacity is 1"),
    "duplicate": (json.dumps(fig1_graph(ops=[{"name": "S"}, {"name": "S"}], edges=[])), "duplicate op name 'S'"),
    "zero_cycle": (json.dumps(fig1_graph(edges=[{"from": "S", "to": "P", "delay": 1},
                                                {"from": "P", "to": "S", "delay": 1}])), "distance 0"),
    "not_object": ("[1, 2]", "must be an object"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_cli_diagnostics(kind, tmp_path, capsys):
    import re
    text, pattern = BAD[kind]
    path = write(tmp_path, f"{kind}.json", text)
    assert main([path]) == 1
    err = capsys.readouterr().err
    assert err.startswith(path)
    assert re.search(pattern, err), err
    assert "Traceback" not in err


def test_cli_missing_file(capsys):
    assert main(["/nonexistent/graph.json"]) == 1
    assert "/nonexistent/graph.json: error: cannot read input: No such file or directory" in capsys.readouterr().err


def test_normalize_costs_keeps_ratios():
    new = normalize_costs([1000, 500, 250], 70)
    assert new[0] == 2 * new[1] == 4 * new[2] and sum(new) <= 70
    assert normalize_costs([3, 7], 10) == [3, 7]
    tiny = normalize_costs([1024, 8], 20)
    assert tiny[0] >= 1 and sum(tiny) <= 20


def test_normalize_graph_is_isomorphic_for_scaled_graph():
    g = fig1_graph()
    for op in g["ops"]:
        for u in op["uses"]:
            op["uses"][u] = [1] * 100
    for e in g["edges"]:
        e["delay"] = 100
    small = normalize_graph(graph_from_dict(g), 300)
    assert all(len(r) == 1 for op in small.ops for r in op.uses.values())
    assert all(e.delay == 1 for e in small.edges)


@pytest.mark.skipif(not os.path.exists(ATTENTION), reason="attention kernel not available")
def test_attention_graph_from_ir():
    from wsdialects.schedule.from_ir import graph_from_file
    g = graph_from_file(ATTENTION, "h100")
    kinds = {op.name: op.kind for op in g.ops}
    dots = [n for n, k in kinds.items() if k == "tile.dot"]
    assert len(dots) == 2
    loads = [op for op in g.ops if op.kind == "tile.desc_load"]
    assert len(loads) == 2 and all(op.variable_latency and g.is_streaming(op.name) for op in loads)
    # the accumulator is loop carried: the second dot feeds the next iteration
    carried = [e for e in g.edges if e.distance == 1]
    assert any(e.src in dots for e in carried)
    # GEMM and the big exp cost the same on Hopper (Fig. 1's premise)
    exp = next(op for op in g.ops if op.kind == "math.exp2" and op.regs >= 64)
    dot = g.op(dots[0])
    assert len(exp.uses["SFU"]) == len(dot.uses["TC"])
    # the dot's result comes the measured wgmma latency after its tensor-core time
    assert dot.latency == len(dot.uses["TC"]) + 128 and exp.latency == len(exp.uses["SFU"])
    assert not any(op.kind in ("tile.trans", "tile.broadcast", "tile.expand_dims") for op in g.ops)


@pytest.mark.skipif(not os.path.exists(ATTENTION), reason="attention kernel not available")
def test_attention_schedule_cli(capsys):
    assert main([ATTENTION, "--arch", "h100"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["II"] >= out["res_mii"]
    warps = {p["warp"] for p in out["ops"].values()}
    assert len(warps) >= 2


KERNELS = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kernels")
CAUSAL = os.path.join(os.path.dirname(__file__), "..", "Inputs", "kernels", "causal_attention.mlir")


def _loop_graph(path, arch="h100"):
    import wsdialects
    from wsdialects.schedule.from_ir import find_kernel_loop, graph_of_loop
    fn, loop = find_kernel_loop(wsdialects.parse_file(path))
    return graph_of_loop(fn, loop, arch)


def test_gemm_accumulator_split_over_cooperative_groups():
    """128x256 f32 is 256 registers/thread on one warp group, above the h100
    budget of 240 for two compute groups: the two groups act as one
    cooperative team, each thread holding half (128)."""
    from wsdialects.schedule.machine import TileInfo, load_machine
    lg = _loop_graph(os.path.join(KERNELS, "gemm.mlir"))
    g = lg.graph
    acc = next(op for op in g.ops if op.kind == "tile.dot")
    h100 = load_machine("h100")
    assert h100.regs_per_thread(TileInfo((128, 256), 32)) == 256 > h100.reg_limit(2) == 240
    assert lg.groups_per_warp == 2 and g.warps.count == 1
    assert acc.regs == 128 and g.warps.reg_limit == 240
    sched = solve_graph(g)
    assert sched.ops[acc.name].warp == 0


def solve_graph(g):
    from wsdialects.schedule.joint import twill
    return twill(normalize_graph(g, 300), time_limit=30)


def test_cooperative_split_rules():
    from wsdialects.schedule.from_ir import cooperative_split, pingpong_split
    from wsdialects.schedule.machine import TileInfo, load_machine
    h100 = load_machine("h100")
    acc = ("tile.dot", TileInfo((128, 256), 32))
    assert cooperative_split(h100, [acc], 2) == 2
    # four groups have 120 registers each: 128x256 would need 32-row parts (no),
    # 256x128 fits as four 64-row parts
    assert cooperative_split(h100, [acc], 4) == 1
    assert cooperative_split(h100, [("tile.dot", TileInfo((256, 128), 32))], 4) == 4
    assert cooperative_split(h100, [acc], 1) == 1  # one group: nothing to split over
    assert cooperative_split(h100, [("tile.dot", TileInfo((128, 128), 32))], 2) == 1  # fits as it is
    # a 64-row dot result cannot be split further (one wgmma is 64 rows)
    assert cooperative_split(h100, [("tile.dot", TileInfo((64, 512), 32))], 2) == 1
    # a tile whose rows do not divide: no split
    assert cooperative_split(h100, [acc, ("arith.addf", TileInfo((3, 7), 32))], 2) == 1
    # a one-row tile (a row vector broadcast along M: attention backward's LSE) is held whole
    # by every group, no obstacle to the split; a one-row dot result is below one wgmma
    row = ("arith.negf", TileInfo((1, 64), 32))
    assert cooperative_split(h100, [acc, row], 2) == 2
    assert pingpong_split([("tile.dot", TileInfo((128, 64), 32)), row], 2, 1) == 2
    assert pingpong_split([("tile.dot", TileInfo((1, 64), 32))], 2, 1) is None


def test_epilogue_results_share_one_groups_budget():
    """Loop results the code after the loop uses are held together by one group (or team)."""
    from wsdialects.schedule.from_ir import cooperative_split
    from wsdialects.schedule.machine import TileInfo, load_machine
    h100 = load_machine("h100")
    acc = TileInfo((128, 128), 32)  # 128 registers per thread in one group
    assert cooperative_split(h100, [("tile.dot", acc), ("tile.dot", acc)], 2) == 1
    assert cooperative_split(h100, [("tile.dot", acc), ("tile.dot", acc)], 2, held_after=[acc, acc]) == 2
    assert cooperative_split(h100, [("tile.dot", acc)], 2, held_after=[acc]) == 1


def test_accumulating_dot_recurrence_costs_its_occupancy():
    """A dot accumulating onto its own result waits for the tensor core, not for the result
    (the pipe chains MMAs into one accumulator): the recurrence edge's delay is the dot's
    occupancy, so a GEMM's RecMII is not its dot's latency. fp8 128x256x128 used to be
    RecMII-bound at 17 as a lockstep team (16 + 1 of latency) and the solver took a
    ping-pong team (II 16), 4-9 % slower on the H100 (bench/results/2026-11-26-gemm-kinds-h100-run41.md);
    now the lockstep team reaches 16 too and is chosen (no turn barriers)."""
    path = os.path.join(os.path.dirname(__file__), "..", "Inputs", "kernels", "gemm_kinds", "fp8_scaled_gemm.mlir")
    g = _loop_graph(path).graph
    dot = next(op for op in g.ops if op.kind == "tile.dot")
    (self_edge,) = [e for e in g.edges if e.src == e.dst == dot.name]
    assert self_edge.distance == 1
    assert self_edge.delay == max(len(u) for u in dot.uses.values()) < dot.cycles
    other = [e for e in g.edges if e.src == dot.name and e.dst != dot.name]
    assert all(e.delay == dot.cycles for e in other)  # its result is waited for elsewhere
    import wsdialects
    from wsdialects.tools.ws_opt import build_pipeline
    m = wsdialects.parse_file(path)
    build_pipeline("ws-schedule{arch=h100}", path).apply(None, m)
    (loop,) = [o for o in m.walk() if o.name == "scf.for" and "ws.schedule" in o.attributes]
    chosen = loop.attributes["ws.schedule"].data
    assert chosen["cooperative"].value.data == 2 and "pingpong" not in chosen


def test_gemm_with_one_group_is_not_schedulable(tmp_path):
    """Without a second group to share the accumulator the register limit
    cannot be met: the solver says so (no schedule at any II)."""
    from wsdialects.schedule import GraphError
    text = open(os.path.join(KERNELS, "gemm.mlir")).read().replace("tile.num_warps = 8", "tile.num_warps = 4")
    path = write(tmp_path, "gemm4.mlir", text)
    lg = _loop_graph(path)
    assert lg.groups_per_warp == 1
    acc = next(op for op in lg.graph.ops if op.kind == "tile.dot")
    assert acc.regs == 256 > lg.graph.warps.reg_limit
    with pytest.raises(GraphError, match="no schedule at any II: op 'acc2' holds 256 registers"):
        from wsdialects.schedule.joint import twill
        twill(normalize_graph(lg.graph, 300), time_limit=30)


def test_causal_mask_is_index_arithmetic():
    """The causal mask and the column offsets depend on the induction variable
    only: they are recomputed where needed (no cross-warp spill cost, no
    ws.warp), so the mask's 2 KiB i1 tile does not force a 16x finer cost
    normalization than attention's (the cause of the earlier time-outs)."""
    lg = _loop_graph(CAUSAL)
    index = {lg.names[op] for op in lg.index_ops}
    assert index == {"offs_n", "causal"}
    assert all(lg.graph.op(n).spill_cost == 0 for n in index)
    assert all(lg.graph.op(n).spill_cost > 0 for n in ("qk", "p", "acc_new"))
    causal = normalize_graph(lg.graph, 300)
    plain = normalize_graph(_loop_graph(ATTENTION).graph, 300)
    dot = lambda g: next(op.cycles for op in g.ops if op.kind == "tile.dot")  # noqa: E731
    assert dot(causal) == dot(plain)


def test_causal_attention_is_scheduled():
    from wsdialects.schedule.joint import twill
    lg = _loop_graph(CAUSAL)
    sched = twill(normalize_graph(lg.graph, 300), time_limit=60)
    assert sched.ii >= max(sched.res_mii, sched.rec_mii)
    dots = [n for n, p in sched.ops.items() if lg.graph.op(n).kind == "tile.dot"]
    assert len({sched.ops[n].warp for n in dots}) == 2  # QK^T and PV on different groups


def test_gantt_of_a_pingpong_team_has_a_row_per_member():
    """A ping-pong team's members run the same schedule offset by II / s: the Gantt chart
    draws one row per member at its offset, and every member's unit occupancy."""
    pytest.importorskip("ortools")
    from wsdialects.schedule import render
    from wsdialects.schedule.joint import twill

    g = graph_from_dict(fig1_graph(warps={"count": 1, "pingpong": 2}))
    s = twill(g, time_limit=30)
    svg = render.gantt_svg(g, s)
    half = s.ii // 2
    assert "warp 0, member 0 (+0)" in svg and f"warp 0, member 1 (+{half})" in svg
    # per copy: the SFU row once for each member, and each member's row
    assert svg.count("<title>P (copy") == 4 * s.stages
    assert "ping-pong team of 2" in render.graph_svg(g, s)
