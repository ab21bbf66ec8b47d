"""The composite passes ws-specialize and ws-hopper verify once, after their sub-passes
(as MLIR's pass manager verifies between passes, not inside one), yet a sub-pass that
breaks the IR is still reported as an internal compiler error (exit 2) at the op; ws-hopper
picks its ring depth by undoing a deeper trial, with the same result as asking for that
depth, and prints each remark once. Also ws-pingpong's team errors in prose."""

import re
from pathlib import Path

import pytest

from wsdialects.diagnostics import parse_text
from wsdialects.tools import ws_opt

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
INPUTS = Path(__file__).resolve().parents[1] / "Inputs" / "kernels"


def opt(argv, capsys) -> tuple[int, str, str]:
    """ws-opt in this process: (exit status, stdout, stderr)."""
    with pytest.raises(SystemExit) as e:
        ws_opt.main([str(a) for a in argv])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def _break_dominance(module) -> None:
    """Move the first op of the kernel whose result a later op of its block uses after that
    use: IR that no longer verifies ('operand #i does not dominate this use')."""
    for op in module.walk():
        for v in op.operands:
            d = v.owner
            if getattr(d, "parent", None) is op.parent and d is not op and d.parent is not None \
                    and d.parent.parent_op().name != "builtin.module":
                d.detach()
                op.parent.insert_op_after(d, op)
                return
    raise AssertionError("no op to move")


@pytest.mark.parametrize("pipeline,culprit", [
    ("ws-specialize", "wsdialects.transforms.pipeline_coarse:PipelineCoarsePass"),
    ("ws-specialize", "wsdialects.transforms.partition:PartitionPass"),
    ("ws-hopper{auto=false}", "wsdialects.transforms.distribute:DistributePass"),
    ("ws-hopper{auto=false}", "wsdialects.lower.lower_mma:LowerMmaPass"),
])
def test_broken_sub_pass_is_an_internal_error_at_the_op(pipeline, culprit, capsys, monkeypatch):
    import importlib

    module, name = culprit.split(":")
    cls = getattr(importlib.import_module(module), name)
    apply = cls.apply

    def broken(self, ctx, op):
        apply(self, ctx, op)
        _break_dominance(op)

    monkeypatch.setattr(cls, "apply", broken)
    code, out, err = opt([KERNELS / "gemm.mlir", "-p", pipeline], capsys)
    assert code == 2 and out == ""
    assert re.search(rf"gemm\.mlir:\d+:\d+: error: internal compiler error: {pipeline.split('{')[0]} produced IR that "
                     r"does not "
                     r"verify: '[\w.]+' operand #\d+ does not dominate this use", err), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_pass_manager_still_verifies_after_a_composite(capsys, monkeypatch):
    """The composite's own verification stands in for the pass manager's only when it was
    the composite's last step: a pass run after it is verified as before."""
    from wsdialects.lower.lower_aref import LowerArefPass

    apply = LowerArefPass.apply

    def broken(self, ctx, op):
        apply(self, ctx, op)
        _break_dominance(op)

    monkeypatch.setattr(LowerArefPass, "apply", broken)
    code, _, err = opt([KERNELS / "gemm.mlir", "-p", "ws-specialize,ws-lower-aref"], capsys)
    assert code != 0 and "does not dominate this use" in err, err


def test_hopper_depth_that_fits_is_the_depth_asked_for(capsys):
    """Attention's rings of depth 4 do not fit: ws-hopper undoes that trial and gives exactly
    what ws-hopper{depth=2} gives, saying so in one remark; ws-partition's remark on a kernel
    it leaves alone is printed once, not once per trial."""
    code, chosen, err = opt([KERNELS / "flash_attention.mlir", "-p", "ws-hopper{auto=false}"], capsys)
    assert code == 0 and err.count("remark: ws-hopper: rings of depth 4 need") == 1 and "using depth 2" in err
    code, asked, err2 = opt([KERNELS / "flash_attention.mlir", "-p", "ws-hopper{auto=false depth=2}"], capsys)
    assert code == 0 and "remark" not in err2 and chosen == asked

    code, _, err = opt([INPUTS / "no_loop.mlir", "-p", "ws-hopper{auto=false}"], capsys)
    assert code == 0 and err.count("remark: ws-partition: @scale has no loop with a TMA load") == 1, err


def _coop_gemm():
    text = ws_opt_text(KERNELS / "gemm.mlir", "ws-specialize{cooperative=2}")
    return parse_text(text)


def ws_opt_text(path, pipeline) -> str:
    from kernel_cache import compile_kernel

    return str(compile_kernel(path, pipeline))


def test_pingpong_team_errors_are_prose():
    """ws-pingpong names the groups of an incomplete team in words, not as a Python list."""
    from xdsl.dialects.builtin import IntegerAttr

    from wsdialects.transforms.pingpong import team_of
    from wsdialects.warp_group import RegionOp, ShareOp

    module = _coop_gemm()
    shares = [o for o in module.walk() if isinstance(o, ShareOp)]
    region = next(o for o in module.walk() if isinstance(o, RegionOp))
    assert len(shares) == 2
    for s in shares:  # a team of 3 of which only groups 0 and 1 have a partition
        s.properties["groups"] = IntegerAttr(3, s.groups.type)
    with pytest.raises(Exception) as e:
        team_of(region)
    msg = str(e.value)
    assert "the cooperative team of 3 groups has no partition for group 2" in msg, msg
    assert "[" not in msg and "(" not in msg.split("error:")[-1], msg

    shares[0].properties["groups"] = IntegerAttr(2, shares[0].groups.type)
    shares[1].properties["groups"] = IntegerAttr(2, shares[1].groups.type)
    # partition 1 in two teams at once: a second share of the same partition as group 1 of 2
    twin = shares[0].clone()
    twin.properties["group"] = IntegerAttr(1, shares[0].group.type)
    shares[0].parent.insert_op_after(twin, shares[0])
    with pytest.raises(Exception) as e:
        team_of(region)
    msg = str(e.value)
    assert "is a member of several cooperative groups (group 0 of 2 and group 1 of 2)" in msg, msg


def test_nested_note_collectors_come_off_by_identity():
    """ws-hopper collects a trial's remarks inside ws-opt --verify-diagnostics' collector: both
    are empty lists, equal by value; leaving the inner one must not take the outer one off."""
    from wsdialects.diagnostics import _collectors, collect_notes, note_at

    with collect_notes() as outer:
        with collect_notes() as inner:
            pass
        note_at(None, "remark", "after")
    assert inner == [] and outer == [("remark", None, "after")] and _collectors == []



def test_a_failing_trial_prints_its_remarks_once(capsys, monkeypatch):
    """A ws-hopper trial that fails after a remark: the remark is printed once, then the
    error (replayed outside the trial's collector: replayed into it, the loop never ended)."""
    import wsdialects.diagnostics as diagnostics
    from wsdialects.diagnostics import WsError, remark
    from wsdialects.transforms.pipeline_coarse import PipelineCoarsePass

    def failing(self, ctx, op):
        remark(op, "a remark before the failure")
        raise WsError("the failure", "k.mlir", 1, 1)

    calls = []
    note_at = diagnostics.note_at

    def counted(*a):
        calls.append(a)
        assert len(calls) < 100, "remarks replayed without end"
        note_at(*a)

    monkeypatch.setattr(PipelineCoarsePass, "apply", failing)
    monkeypatch.setattr(diagnostics, "note_at", counted)
    code, _, err = opt([KERNELS / "gemm.mlir", "-p", "ws-hopper{auto=false}"], capsys)
    assert code == 1 and err.count("a remark before the failure") == 1 and "error: the failure" in err, err
