"""ws-schedule's ws.order: the ops of one steady-state step in issue order, ties at one
issue cycle broken by the dependences read in that step, then by program order."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from kernel_cache import compile_kernel
from wsdialects.schedule.graph import graph_from_dict
from wsdialects.transforms.schedule import steady_state_order
from wsdialects.transforms.schedule_check import check_schedule

ATTENTION = Path(__file__).resolve().parents[2] / "examples" / "kernels" / "attention.mlir"


def _sched(ii, starts):
    return SimpleNamespace(ii=ii, ops={n: SimpleNamespace(start=s) for n, s in starts.items()})


# l_scaled = l_i * alpha (l_i: the previous iteration's l_new); l_new = l_scaled + l_ij: both
# zero-cycle after normalization, l_new one stage late, so iteration i + 1's l_scaled issues
# in the cycle that computes the l_new it reads.
ROW_SUM = graph_from_dict({
    "units": {"ALU": 1},
    "ops": [{"name": "l_scaled", "latency": 0}, {"name": "l_new", "latency": 0}, {"name": "x", "latency": 0}],
    "edges": [{"from": "l_scaled", "to": "l_new", "delay": 0},
              {"from": "l_new", "to": "l_scaled", "delay": 0, "distance": 1}]})


def test_a_value_read_in_its_own_step_is_computed_first():
    order = steady_state_order(ROW_SUM, _sched(4, {"l_scaled": 2, "l_new": 6, "x": 2}), ["l_scaled", "l_new", "x"])
    assert order == ["l_new", "l_scaled", "x"]


def test_program_order_breaks_the_other_ties():
    """Same cycle, no dependence in the step (l_new in stage 0 reads this step's l_scaled:
    program order already has it), and an op of another cycle."""
    order = steady_state_order(ROW_SUM, _sched(4, {"l_scaled": 1, "l_new": 1, "x": 0}), ["l_scaled", "l_new", "x"])
    assert order == ["x", "l_scaled", "l_new"]


def test_solver_schedule_of_split_attention_passes_the_check():
    """The shared attention kernel as split warps (pingpong=false): its row sum is updated
    one stage late at the cycle the next l_scaled reads it; ordered by program order alone,
    the schedule check refused the solver's own schedule."""
    pytest.importorskip("ortools")
    m = compile_kernel(ATTENTION, "ws-schedule{arch=h100 pingpong=false time-limit=120}", file="attention")
    check_schedule(m)
    attrs = {o.results[0].name_hint: o.attributes for o in m.walk() if "ws.order" in o.attributes and o.results}
    order = {n: a["ws.order"].value.data for n, a in attrs.items()}
    stage = {n: a["ws.stage"].value.data for n, a in attrs.items()}
    if stage["l_new"] == stage["l_scaled"] + 1:  # read in the step that computes it
        assert order["l_new"] < order["l_scaled"]
