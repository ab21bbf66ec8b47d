"""Set-up for every pytest suite under test/ (loaded before any test module imports numpy).

- One BLAS thread per process: the interpreter's matrix products are small, and
  OpenBLAS's threads only spin against the interpreter, the solver and the other
  pytest-xdist worker for the 2 cores (about 40 % of the suite's CPU time). Set
  OPENBLAS_NUM_THREADS yourself to override. `ws-opt` subprocesses inherit it.
- test/kernel_cache.py (kernels parsed and pass pipelines run once per process) is off
  for a test that uses `monkeypatch`: it may have changed a pass or the parser.
"""

import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
if "numpy" in sys.modules:  # too late for the variables above: say so rather than run slowly
    sys.stderr.write("test/conftest.py: numpy was imported before the BLAS thread count was set\n")

import pytest  # noqa: E402

import kernel_cache  # noqa: E402


@pytest.fixture(autouse=True)
def _kernel_cache_off_under_monkeypatch(request):
    kernel_cache.enabled = "monkeypatch" not in request.fixturenames
    yield
    kernel_cache.enabled = True


def _slow_prefixes() -> list[str]:
    """Node-id prefixes of the slowest tests, slowest first (test/slow_tests.txt; pytest's
    --durations cuts an id at its first space, so a line may name several parametrizations)."""
    path = os.path.join(os.path.dirname(__file__), "slow_tests.txt")
    try:
        with open(path, encoding="utf-8") as f:
            return [line.split(None, 1)[1].strip() for line in f if line.strip() and not line.startswith("#")]
    except (OSError, IndexError):
        return []


def pytest_collection_modifyitems(config, items):
    """Start the slowest tests first: under `pytest -n auto` a long test collected last
    keeps one worker busy after the other has finished. Only the order changes."""
    prefixes = _slow_prefixes()
    if not prefixes:
        return

    def rank(item) -> int:
        return next((i for i, p in enumerate(prefixes) if item.nodeid.startswith(p)), len(prefixes))

    items[:] = sorted(items, key=rank)  # stable: the rest keep their collection order
