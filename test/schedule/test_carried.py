"""The tie-break among schedules of the optimal (II, L): the fewest bytes carried across stage
boundaries (wsdialects/schedule/carried.py)."""

from pathlib import Path

import pytest

import wsdialects
from wsdialects.schedule import solve
from wsdialects.schedule.carried import carried_bytes
from wsdialects.schedule.graph import graph_from_dict

pytest.importorskip("ortools")

SCHEDULED = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "scheduled"

# S (a 4-cycle MMA) -> P (an f32 tile, 64 registers) -> C (its f16 copy, 32) -> O (an MMA
# that accumulates across iterations). The tensor core makes II 8 and puts O at residue 4 of
# stage 1 (L 16); P and C fit anywhere between S and O, so the stage boundary at cycle 8 can
# fall after S (S carried: 64), between P and C (P: 64) or after C (C: 32).
TIE = {"units": {"TC": 1, "ALU": 1},
       "ops": [{"name": "S", "uses": {"TC": [1, 1, 1, 1]}, "regs": 64},
               {"name": "P", "uses": {"ALU": [1]}, "regs": 64},
               {"name": "C", "uses": {"ALU": [1]}, "regs": 32},
               {"name": "O", "uses": {"TC": [1, 1, 1, 1]}, "regs": 64}],
       "edges": [{"from": "S", "to": "P", "delay": 4}, {"from": "P", "to": "C", "delay": 1},
                 {"from": "C", "to": "O", "delay": 1}, {"from": "O", "to": "O", "delay": 4, "distance": 1}]}


def test_tie_carries_the_smaller_value(monkeypatch):
    """Among the schedules of II 8 and L 16 the solver takes the one that carries C (32
    registers), not S (as M's as-late-as-possible starts would: 64); without the tie-break,
    the same II and L."""
    s = solve(TIE)
    assert (s.ii, s.length) == (8, 16)
    assert s.ops["C"].stage == s.ops["P"].stage == 0 and s.ops["O"].stage == 1
    g = graph_from_dict(TIE)
    starts = {n: p.start for n, p in s.ops.items()}
    warps = {n: p.warp for n, p in s.ops.items()}
    assert carried_bytes(g, starts, s.ii, warps) == 32 + 64  # C, and O's own recurrence
    import wsdialects.schedule.joint as joint
    monkeypatch.setattr(joint, "fewest_carried", lambda model, starts, warps, deadline: (starts, warps))
    first = solve(TIE)
    assert (first.ii, first.length) == (8, 16)
    late = {n: p.start for n, p in first.ops.items()}
    assert carried_bytes(g, late, first.ii, warps) > 32 + 64


def _stages(name: str) -> dict[str, tuple[int, int | None]]:
    m = wsdialects.parse_file(SCHEDULED / name)
    return {o.results[0].name_hint: (o.attributes["ws.stage"].value.data,
                                     o.attributes["ws.warp"].value.data if "ws.warp" in o.attributes else None)
            for o in m.walk() if "ws.stage" in o.attributes and o.results}


@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal", "flash_attention_bf16"])
def test_attention_carries_p_as_f16(name):
    """ws-schedule's attention (the stored output, test_stored_schedules_are_the_solver_output):
    P crosses the stage boundary as its 16-bit copy; the f32 tile and its row sum stay in
    the stage of the exponential."""
    st = _stages(f"{name}.mlir")
    assert st["p16"][0] == st["l_ij"][0] == st["p"][0] < st["acc_new"][0]


@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal", "flash_attention_bf16"])
def test_split_attention_rescales_next_to_pv(name):
    """The split organisation's PV warp rescales O next to P·V (both in P·V's stage): the
    accumulator chain (acc_new -> acc_s -> acc_new, rescaled in place) holds one tile across
    the boundary either way, and the wait for the P·V in flight goes to the end of the
    softmax (the tie-break's second key), as in FA3 and the heuristic pipeline."""
    st = _stages(f"{name}_split.mlir")
    assert st["acc_s"][1] == st["acc_new"][1] and st["acc_s"][0] == st["acc_new"][0] == 1

@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal", "flash_attention_bf16",
                                  "flash_attention_bf16_bn176"])
def test_pingpong_attention_is_the_heuristic_kernel(name):
    """With the rescale next to P·V, ws-schedule's ping-pong attention (the stored schedule,
    the solver's output) compiles to the PTX of the heuristic ping-pong pipeline, byte for
    byte: the solver finds FA3's pipeline and the heuristic's structure on its own. The 176-key
    tile too (priced with the partner, partner-latency=auto), since a waiting op may issue beside
    another op's latency tail (the joint model's blocking window is the issue cycles)."""
    root = Path(__file__).resolve().parents[2]
    source = next(p for p in (root / "examples" / "kernels" / f"{name}.mlir",
                              root / "test" / "Inputs" / "kernels" / f"{name}.mlir") if p.exists())
    solver = wsdialects.compile(SCHEDULED / f"{name}.mlir", pipeline="ws-hopper")
    heuristic = wsdialects.compile(source, pipeline="ws-hopper{cooperative=2 pingpong=true}")
    assert solver.ptx == heuristic.ptx
