"""The composite softmax calibration (tools/calibrate.py's measurement, tools/machine_fit.py's
fit), the machine model's chain_latency and ws-schedule's partner-latency option, and the
§5.2 normalization keeping significant durations non-zero."""

import json
import sys
from pathlib import Path

import pytest

import wsdialects
from wsdialects.schedule.from_ir import find_kernel_loop, graph_of_loop
from wsdialects.schedule.machine import Machine, load_machine
from wsdialects.schedule.normalize import SIGNIFICANT, normalize_costs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import machine_fit  # noqa: E402

MEASURED = ROOT / "bench" / "results" / "2026-11-26-calibrate-h100.json"
BN176 = ROOT / "test" / "Inputs" / "kernels" / "flash_attention_bf16_bn176.mlir"
SOFTMAX = ("qk_m", "qk", "qk_c", "p", "p16", "rowmax", "l_ij", "acc_s")


def _graph(path, **kw):
    fn, loop = find_kernel_loop(wsdialects.parse_file(path))
    return graph_of_loop(fn, loop, "h100", **kw).graph


def test_fit_of_the_recorded_measurement(tmp_path):
    """The H100 measurement of 2026-11-26: alone on its SM the softmax takes what the model's
    chain says (fit 0.99, the factor 1); beside a second warp group 1.32x, rounded to 1.5.
    Written into a copy of h100.json, those are the factors the machine loads."""
    m = json.loads(MEASURED.read_text())
    machine = tmp_path / "h100.json"
    machine.write_text((ROOT / "wsdialects" / "schedule" / "machines" / "h100.json").read_text())
    machine_fit.write_machine(machine, m, "2026-11-26", "test")
    c = json.loads(machine.read_text())["chain_latency"]
    assert c["alone (fit)"] == pytest.approx(0.99, abs=0.01) and c["alone"] == 1.0
    assert c["with_partner (fit)"] == pytest.approx(1.32, abs=0.01) and c["with_partner"] == 1.5
    assert c == load_machine("h100").chain_latency


def test_fit_follows_the_measurement():
    """Twice the clocks, twice the factor (and the 64x256 point, which spills in the Triton
    kernel, is left out of the fit)."""
    m = json.loads(MEASURED.read_text())
    data = json.loads((ROOT / "wsdialects" / "schedule" / "machines" / "h100.json").read_text())
    soft = m["softmax 64xN clocks (N, step, P·V alone, softmax)"]
    doubled = {k: [[n, a, b, 2 * c if n in machine_fit.SOFTMAX_KEYS else 1e9] for n, a, b, c in rows]
               for k, rows in soft.items()}
    fit = machine_fit.chain_fit(data, {**m, "softmax 64xN clocks (N, step, P·V alone, softmax)": doubled})
    base = machine_fit.chain_fit(data, m)
    assert fit["with_partner (fit)"] == pytest.approx(2 * base["with_partner (fit)"], rel=1e-3)
    assert fit["alone (fit)"] == pytest.approx(2 * base["alone (fit)"], rel=1e-3)
    assert [machine_fit.half(v) for v in (0.7, 1.2, 1.32, 1.8)] == [1.0, 1.0, 1.5, 2.0]


def test_partner_latency_prices_a_members_softmax():
    """With partner-latency a ping-pong member's ALU and SFU ops are ready 1.5x their unit
    occupancy after issue; occupancies, the tensor-core and TMA ops, and the graph without the
    option (or outside a ping-pong team) are unchanged."""
    plain = {o.name: o for o in _graph(BN176, pingpong=True).ops}
    priced = {o.name: o for o in _graph(BN176, pingpong=True, partner_latency=True).ops}
    split = {o.name: o for o in _graph(BN176, partner_latency=True).ops}
    for name, op in priced.items():
        assert op.uses == plain[name].uses
        if name in SOFTMAX:
            occupancy = max(len(r) for r in op.uses.values())
            assert op.latency == round(1.5 * occupancy) > plain[name].latency == occupancy
        elif op.kind in ("tile.dot", "tile.desc_load"):
            assert op.latency == plain[name].latency
    assert [o.latency for o in split.values()] == [o.latency for o in _graph(BN176).ops]


def test_machine_without_chain_latency_is_unchanged():
    data = json.loads((ROOT / "wsdialects" / "schedule" / "machines" / "h100.json").read_text())
    data.pop("chain_latency")
    m = Machine(data)
    assert m.chain_factor("ALU", True) == m.chain_factor("SFU", False) == 1.0
    assert load_machine("h100").chain_factor("TC", True) == 1.0


def test_normalization_keeps_significant_durations():
    """§5.2's F is absolute, so without a floor its minimum maps everything but the largest
    counts to 0 where no small lattice fits them all (the 176-key model with partner
    latency: a 704-cycle exp2 at 0, II 4). Counts of at least max / 64 keep at least 1."""
    costs = [1, 2, 4, 6, 8, 64, 88, 96, 128, 132, 176, 264, 352, 704, 832, 1024, 1056, 1408, 1536]
    new = dict(zip(costs, normalize_costs(costs, 300)))
    assert all(new[c] >= 1 for c in costs if c * SIGNIFICANT >= max(costs))
    assert new[704] < new[1408] <= new[1536] and new[1] == 0


ATTN128 = ROOT / "examples" / "kernels" / "flash_attention_bf16.mlir"


def _choose(path, **options):
    from wsdialects.transforms.schedule import SchedulePass

    pytest.importorskip("ortools")
    fn, loop = find_kernel_loop(wsdialects.parse_file(path))
    return SchedulePass(time_limit=120, **options).choose(fn, loop)


def test_member_budget_is_what_the_lowering_gives_a_member():
    """A ping-pong team's member: setmaxnreg 232 beside the 40-register producer
    (ws-distribute), less the 28 scalar registers ws-register-budget counts on top of tiles."""
    from wsdialects.lower.register_budget import OVERHEAD
    from wsdialects.transforms.distribute import consumer_regs
    from wsdialects.transforms.schedule import _member_budget

    fn, loop = find_kernel_loop(wsdialects.parse_file(ATTN128))
    lg = graph_of_loop(fn, loop, "h100", pingpong=True)
    assert (consumer_regs(8), OVERHEAD) == (232, 28) and _member_budget(lg) == 204


@pytest.mark.parametrize("path,partner", [(BN176, True), (ATTN128, False)], ids=["176-keys", "128-keys"])
def test_auto_takes_the_partner_prices_where_the_member_overlaps_nothing(path, partner):
    """partner-latency=auto: priced at occupancy the 176-key schedule is one stage (the chain
    hidden by the partner alone), so the partner's prices decide: P·V one stage behind, whose
    registers (200 in the model) fit the member's 204. The 128-key occupancy schedule is
    pipelined already (P·V in stage 1) and is kept; priced with the partner it would carry the
    f32 P (227 registers: ptxas spills 120 bytes, bench/results/2026-11-26-partner-latency-h100.md)."""
    from wsdialects.schedule.carried import register_peak
    from wsdialects.transforms.schedule import _member_budget, _pipelined

    lg, graph, sched = _choose(path, partner_latency=False)
    assert _pipelined(graph, sched) is not partner
    plg, pgraph, psched = _choose(path, partner_latency=True)
    assert (register_peak(pgraph, psched) <= _member_budget(plg)) is partner
    auto = _choose(path)
    assert auto[0].partner_latency is partner
    assert auto[2].ii == (psched if partner else sched).ii and auto[2].length == (psched if partner else sched).length


def test_register_peak_counts_what_the_joint_model_constrains():
    """register_peak is the joint model's own count: Fig. 1 with a register per value and a
    budget of two is scheduled at II 3 within the budget; without the budget at II 2, where
    three values are live at once (test/schedule/lit/reg-limit.json)."""
    from dataclasses import replace

    from wsdialects.schedule.carried import register_peak
    from wsdialects.schedule.graph import graph_from_json
    from wsdialects.schedule.joint import twill

    pytest.importorskip("ortools")
    g = graph_from_json((ROOT / "test" / "schedule" / "lit" / "reg-limit.json").read_text())
    limited = twill(g, time_limit=60)
    free = twill(replace(g, warps=replace(g.warps, reg_limit=None)), time_limit=60)
    assert (limited.ii, register_peak(g, limited)) == (3, 2) and (free.ii, register_peak(g, free)) == (2, 3)


def test_register_peak_of_lifetimes_over_several_iis():
    """A value live for q IIs and m cycles more holds q copies at every residue and one more at
    the m residues from its issue (modulo variable expansion)."""
    from wsdialects.schedule.carried import register_peak
    from wsdialects.schedule.graph import graph_from_dict
    from wsdialects.schedule.solution import Placement, Schedule

    g = graph_from_dict({"units": {"ALU": 1}, "ops": [{"name": n, "uses": {"ALU": [1]}, "regs": r}
                                                      for n, r in (("a", 10), ("b", 5), ("c", 7))],
                         "edges": [{"from": "a", "to": "b", "delay": 1}, {"from": "b", "to": "a", "delay": 1, "distance": 1},
                                   {"from": "c", "to": "b", "delay": 1, "distance": 2}]})
    s = Schedule(4, 4, {n: Placement(t, t // 4, 0) for n, t in (("a", 0), ("b", 3), ("c", 1))})
    # a: residues 0-2 (10); b: residue 3 until a of the next iteration (5); c: 1 -> 3 + 2 * 4 = 11,
    # two IIs and two cycles: 2 copies everywhere, 3 at residues 1, 2 -> 10 + 21 at residue 1
    assert register_peak(g, s) == 31
