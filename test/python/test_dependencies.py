"""Heavy dependencies live where they are needed (pyproject.toml's extras), and a feature
whose extra is missing says what to install instead of raising a bare ImportError."""

import sys
import tomllib
from pathlib import Path

import pytest

from wsdialects.schedule.solvers import MissingSolver, require_solver

REPO = Path(__file__).resolve().parents[2]
GRAPH = REPO / "test" / "schedule" / "lit" / "fig1.json"


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def names(requirements) -> set[str]:
    import re

    return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_extras():
    p = project()
    core, extras = names(p["dependencies"]), p["optional-dependencies"]
    assert {"xdsl", "numpy", "llvmlite", "ortools"} <= core  # ws-opt -t ptx, ws-schedule's default solver
    assert not core & {"z3-solver", "cuda-python", "torch"}
    assert names(extras["z3"]) == {"z3-solver"}
    assert names(extras["gpu"]) == {"cuda-python", "torch"}
    assert {"pytest", "pytest-xdist", "lit", "filecheck", "wsdialects"} <= names(extras["test"])
    assert "wsdialects[z3]" in extras["test"]  # the tests run both solvers


@pytest.fixture
def no_z3(monkeypatch):
    monkeypatch.setitem(sys.modules, "z3", None)  # `import z3` raises ImportError


def test_require_solver_names_the_extra(no_z3):
    with pytest.raises(MissingSolver) as e:
        require_solver("z3")
    assert str(e.value) == ("ws-schedule: error: the z3 solver needs the Python package z3-solver, which is not "
                            "installed: pip install 'wsdialects[z3]' (or use the default solver, cpsat)")
    assert isinstance(e.value, ImportError)
    require_solver("cpsat")  # a dependency: always there


def test_ws_opt_without_z3_is_a_user_error(no_z3, capsys):
    from wsdialects.tools import ws_opt

    with pytest.raises(SystemExit) as e:
        ws_opt.main([str(REPO / "examples" / "kernels" / "gemm.mlir"), "-p", "ws-schedule{solver=z3}"])
    err = capsys.readouterr().err
    assert e.value.code == 1, err
    assert "ws-opt: error: the z3 solver needs the Python package z3-solver" in err
    assert "pip install 'wsdialects[z3]'" in err and "Traceback" not in err


def test_ws_schedule_without_z3_is_a_user_error(no_z3, capsys):
    from wsdialects.tools.ws_schedule import main

    rc = main([str(GRAPH), "--solver", "z3"])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert err.strip() == ("ws-schedule: error: the z3 solver needs the Python package z3-solver, which is not "
                           "installed: pip install 'wsdialects[z3]' (or use the default solver, cpsat)")


def test_the_z3_solver_runs_where_installed(capsys):
    import json

    from wsdialects.tools.ws_schedule import main

    pytest.importorskip("z3")
    assert main([str(GRAPH), "--solver", "z3"]) == 0
    assert json.loads(capsys.readouterr().out)["II"] == 2
