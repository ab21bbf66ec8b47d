"""The solver-free infeasibility proof of the joint problem (warp_bound) and the
fast first run of feasibility queries: never wrong, and they save solver work."""

import math
import random

import pytest

from wsdialects.schedule import graph_from_dict
from wsdialects.schedule.joint import joint_schedule
from wsdialects.schedule.modulo import critical_length, rec_mii, res_mii, streaming_view
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
    """One warp: a 6-cycle op and three blocking ops that cannot share a residue need II >= 9."""
    g = graph_from_dict({
        "units": {"A": 1, "B": 1},
        "ops": [{"name": "ld", "uses": {"B": [1]}, "variable_latency": True},
                {"name": "x", "uses": {"A": [1]}}, {"name": "y", "uses": {"A": [1]}},
                {"name": "z", "uses": {"A": [1]}}, {"name": "e", "uses": {}, "latency": 6}],
        "edges": [{"from": "ld", "to": n, "delay": 0, "blocking": True} for n in "xyz"]})
    g = streaming_view(g)
    assert joint_bound(g, 8, 40) is not None and joint_bound(g, 9, 40) is None
    assert joint_schedule(g, 8, 40) is None and joint_schedule(g, 9, 40) is not None


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
