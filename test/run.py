"""The test command: lit's suite, then pytest's, sharing the CP-SAT models they both solve.

    python test/run.py          # from the repository root, in the environment of '.[test]'

runs `lit -sv test` and then `python -m pytest -q -n auto` (each as it runs alone; both still
work by themselves), with their output as it comes, and exits with 0 only if both pass (pytest
runs also when lit fails, so that one run reports both suites).

- Both runs share a folder of CP-SAT answers (test/solve_cache.py, through the
  WSDIALECTS_TEST_SOLVE_CACHE variable, set for this command only and removed at its end):
  a model that a lit RUN line solved is not solved again by a pytest test; every distinct
  model is still solved for real. About 4 CPU-s of ~275 (2026-11-27, 2-core machine).
- One after the other, not side by side: with lit's two workers beside pytest's two on the
  2-core machine, the run took ~7 % more CPU time (~294 against ~273 CPU-s) and no less wall
  time (150 s against 142-148 s): each suite already keeps both cores busy to its end.
- Arguments after `--pytest` go to pytest, after `--lit` to lit (replacing the defaults
  `-q -n auto` and `-sv`): `python test/run.py --pytest -q -n auto -x`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOLVE_CACHE = "WSDIALECTS_TEST_SOLVE_CACHE"  # test/solve_cache.py's SHARED


def _args(argv: list[str]) -> tuple[list[str], list[str]]:
    """(lit's options, pytest's arguments): the defaults, or what follows --lit / --pytest."""
    given: dict[str, list[str]] = {}
    which = None
    for a in argv:
        if a in ("--lit", "--pytest"):
            which = a
            given[which] = []
        elif which is None:
            raise SystemExit(f"test/run.py: unexpected argument {a!r} (use --lit ARGS... or --pytest ARGS...)")
        else:
            given[which].append(a)
    return given.get("--lit", ["-sv"]), given.get("--pytest", ["-q", "-n", "auto"])


def _lit_command() -> list[str]:
    """lit from this interpreter's environment (its console script), else `python -m lit`."""
    script = os.path.join(os.path.dirname(sys.executable), "lit")
    if os.path.isfile(script):
        return [sys.executable, script]
    found = shutil.which("lit")
    return [found] if found else [sys.executable, "-m", "lit.main"]


def main(argv: list[str] | None = None) -> int:
    lit_args, pytest_args = _args(sys.argv[1:] if argv is None else argv)
    folder = tempfile.mkdtemp(prefix="ws-test-solves-")
    env = dict(os.environ, **{SOLVE_CACHE: folder})
    try:
        start = time.monotonic()
        lit_rc = subprocess.call([*_lit_command(), *lit_args, "test"], cwd=REPO, env=env, stdin=subprocess.DEVNULL)
        lit_s = time.monotonic() - start
        sys.stdout.flush()
        pytest_rc = subprocess.call([sys.executable, "-m", "pytest", *pytest_args], cwd=REPO, env=env)
        total_s = time.monotonic() - start
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    status = lambda rc: "passed" if rc == 0 else f"FAILED (exit status {rc})"  # noqa: E731
    print(f"\n{'=' * 30} test/run.py {'=' * 30}")
    print(f"lit:    {status(lit_rc)} ({lit_s:.0f} s)")
    print(f"pytest: {status(pytest_rc)} ({total_s - lit_s:.0f} s)")
    print(f"total:  {total_s:.0f} s", flush=True)
    return 0 if lit_rc == 0 and pytest_rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
