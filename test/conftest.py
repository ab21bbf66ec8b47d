"""Set-up for every pytest suite under test/ (loaded before any test module imports numpy).

- One BLAS thread per process: the interpreter's matrix products are small, and
  OpenBLAS's threads only spin against the interpreter, the solver and the other
  pytest-xdist worker for the 2 cores (about 40 % of the suite's CPU time). Set
  OPENBLAS_NUM_THREADS yourself to override. `ws-opt` subprocesses inherit it.
- test/kernel_cache.py (kernels parsed and pass pipelines run once per process, the PTX of
  each LLVM IR text made and each PTX text assembled by ptxas once per run),
  test/solve_cache.py (each CP-SAT model solved once per run) and `parse_text`'s memo of the
  latest texts (wsdialects/diagnostics.py) are off for a test that uses `monkeypatch`: it may
  have changed a pass, the parser or the solver.
- wsdialects.irfast's faster xDSL routines are installed (as `ws-opt` does; importing
  wsdialects does not): `WSDIALECTS_XDSL_FAST=0` runs the suite on xDSL's own.
- Python's cyclic garbage collector runs less often, and never over what has stayed: xDSL's
  IR is all reference cycles (parents, uses), so the suite makes millions of long-lived
  container objects, and at the default thresholds (a collection every 700 allocations, the
  whole heap every ~70 000) the workers spent about a tenth of their CPU time collecting,
  mostly re-scanning the kernel cache and the imported modules (25 s of a 2 x 140 s
  `-n auto` run). Here the young generation collects every 50 000 allocations, and after
  collection and every 50 tests a full collection of what is new is followed by
  `gc.freeze()`: what survived (modules, the kernel cache) is never scanned again, nor
  copied into the fuzzer's forked children. The garbage of each test is still collected.
"""

import gc
import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
if "numpy" in sys.modules:  # too late for the variables above: say so rather than run slowly
    sys.stderr.write("test/conftest.py: numpy was imported before the BLAS thread count was set\n")

import pytest  # noqa: E402

import kernel_cache  # noqa: E402
import solve_cache  # noqa: E402

gc.set_threshold(50_000, 10, 1_000)
_FREEZE_EVERY = 50  # tests
_finished = 0


def _collect_and_freeze() -> None:
    gc.collect()  # a full collection: the permanent generation (frozen) is not scanned
    gc.freeze()


def pytest_collection_finish(session):
    _collect_and_freeze()  # the test modules and what they imported are here to stay


def pytest_runtest_logfinish(nodeid, location):
    global _finished
    _finished += 1
    if _finished % _FREEZE_EVERY == 0:
        _collect_and_freeze()


@pytest.fixture(autouse=True)
def _kernel_cache_off_under_monkeypatch(request):
    from wsdialects import diagnostics

    on = "monkeypatch" not in request.fixturenames
    kernel_cache.enabled = solve_cache.enabled = diagnostics.parse_memo = on
    yield
    kernel_cache.enabled = solve_cache.enabled = diagnostics.parse_memo = True


def pytest_configure(config):
    """The run's folder (kernel_cache.run_folder: made by the process that starts the run and
    inherited by the pytest-xdist workers it starts), and test/solve_cache.py in every process;
    `parse_text`'s memo of the latest texts on (the suite parses the same kernels again and again)."""
    from wsdialects import diagnostics, irfast

    irfast.install()  # the suite runs on the fast xDSL routines (WSDIALECTS_XDSL_FAST=0: on xDSL's own)
    diagnostics.parse_memo = True
    if not hasattr(config, "workerinput"):
        import tempfile

        config._run_folder = tempfile.mkdtemp(prefix="ws-test-run-")
        os.environ[kernel_cache.RUN_DIR] = config._run_folder
    solve_cache.install()
    kernel_cache.install_ptx_memo()


def pytest_unconfigure(config):
    folder = getattr(config, "_run_folder", None)
    if folder is not None:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(kernel_cache.RUN_DIR, None)


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
