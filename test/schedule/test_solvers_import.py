"""OR-Tools' cp_model imports pandas, which the scheduler never uses (0.3-0.6 s of every
ws-schedule run); `solvers.import_cp_model` imports cp_model without it."""

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_cp_model_imports_pandas_by_itself():
    """The workaround is needed: a plain import of cp_model loads pandas (when a later OR-Tools
    no longer does, import_cp_model can go)."""
    pytest.importorskip("ortools")
    assert _run("import sys, ortools.sat.python.cp_model; print('pandas' in sys.modules)") == "True"


def test_backend_imports_cp_model_without_pandas():
    pytest.importorskip("ortools")
    out = _run("import sys\n"
               "from wsdialects.schedule import solve\n"
               "s = solve({'units': {'TC': 1}, 'ops': [{'name': 'S', 'uses': {'TC': [1]}}]})\n"
               "print('pandas' in sys.modules, s.ii)")
    assert out == "False 1"


def test_cp_model_pandas_helpers_still_work():
    """cp_model's own pandas helpers import the real pandas on first use, and a stand-in is
    never left in sys.modules."""
    pytest.importorskip("ortools")
    pytest.importorskip("pandas")
    out = _run("import sys\n"
               "from wsdialects.schedule.solvers import import_cp_model\n"
               "cp_model = import_cp_model()\n"
               "print('pandas' in sys.modules)\n"
               "import pandas as pd\n"
               "xs = cp_model.CpModel().new_bool_var_series('x', pd.Index(range(3)))\n"
               "print(type(xs).__module__.split('.')[0], len(xs), pd.Series is sys.modules['pandas'].Series)")
    assert out.splitlines() == ["False", "pandas 3 True"]
