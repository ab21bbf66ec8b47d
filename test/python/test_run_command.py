"""test/run.py, the test command: the environment both suites run in, and its arguments."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("ws_test_run", Path(__file__).parents[1] / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


def test_both_suites_share_the_solve_folder_and_write_bytecode():
    """Both suites get the command's solve folder, and Python's bytecode caches stay on even where
    the caller's environment turns them off (every fresh Python process would compile the package
    from source again: ~6 % of the command's CPU time)."""
    given = {"PATH": "/bin", "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1"}
    env = run.child_env(given, "/tmp/solves")
    assert env == {"PATH": "/bin", "OPENBLAS_NUM_THREADS": "1", run.SOLVE_CACHE: "/tmp/solves"}
    assert given["PYTHONDONTWRITEBYTECODE"] == "1"  # the caller's own mapping is left alone


def test_arguments_replace_each_suites_defaults():
    assert run._args([]) == (["-sv"], ["-q", "-n", "auto"])
    assert run._args(["--pytest", "-q", "-x", "--lit", "-v"]) == (["-v"], ["-q", "-x"])
    with pytest.raises(SystemExit, match="unexpected argument 'x'"):
        run._args(["x"])
