"""The GEMM kinds of bench/gemm_kinds.py (test/Inputs/kernels/gemm_kinds/) go through ws-hopper to
LLVM IR (no PTX: fast), with no warning (ws-register-budget warns where ptxas would spill), so a
regression of the compiler on one of them shows on CPU; the GPU checks their results
(test/gpu/test_gemm_kinds_gpu.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import wsdialects
from wsdialects.lower.to_llvm import lower_module
from wsdialects.tools.ws_opt import build_pipeline

ROOT = Path(__file__).resolve().parents[2]
GK = ROOT / "test" / "Inputs" / "kernels" / "gemm_kinds"
FILES = sorted(GK.glob("*.mlir"))  # the kernels (their solver schedules: GK / "scheduled")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_lowers_to_llvm(path, capsys):
    m = wsdialects.parse_file(str(path))
    build_pipeline("ws-hopper", str(path)).apply(None, m)
    lowered = lower_module(m)
    (info,) = lowered.kernels
    assert info.name == path.stem
    assert "wgmma.mma_async" in lowered.llvm_ir
    assert info.smem_bytes <= 232448
    err = capsys.readouterr().err
    assert "warning" not in err, err


def test_persistent_lowers(capsys):
    """ws-hopper{persistent=true} on the kernel with a 3-D grid (batch as program_id 2)."""
    path = GK / "batched_tma_gemm.mlir"
    m = wsdialects.parse_file(str(path))
    build_pipeline("ws-hopper{persistent=true}", str(path)).apply(None, m)
    (info,) = lower_module(m).kernels
    assert info.persistent_programs == 132
    assert [p.name for p in info.params][-3:] == ["ws_grid_x", "ws_grid_y", "ws_grid_z"]
    assert "warning" not in capsys.readouterr().err


def test_leading_comments_and_bench_kinds():
    """Each kernel says what it computes, its grid and its arguments; the bench times each one."""
    for path in FILES:
        head = path.read_text().split("func.func")[0]
        assert re.search(r"Grid: \(", head), path.name
        assert "Arguments:" in head, path.name
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from gemm_kinds_specs import KINDS
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert sorted({k.file for k in KINDS.values()}) == [p.name for p in FILES]  # kinds b and g share a kernel


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_stored_schedules_are_the_solver_output_and_lower(path, capsys):
    """gemm_kinds/scheduled/ keeps ws-schedule{arch=h100}'s output for the bench's solver column
    (the GPU machine has no OR-Tools): still what the solver gives, and it lowers without warning."""
    stored = GK / "scheduled" / path.name
    m = wsdialects.parse_file(str(stored))
    build_pipeline("ws-hopper", str(stored)).apply(None, m)
    assert lower_module(m).kernels
    assert "warning" not in capsys.readouterr().err
    pytest.importorskip("ortools")
    fresh = wsdialects.parse_file(str(path))
    build_pipeline("ws-schedule{arch=h100}", str(path)).apply(None, fresh)
    body = "\n".join(line for line in stored.read_text().splitlines() if not line.startswith("//"))
    assert str(fresh).strip() == body.strip()
