"""The test command: lit's suite and pytest's, side by side.

    python test/run.py          # from the repository root, in the environment of '.[test]'

runs `lit -sv test` and `python -m pytest -q -n auto` at the same time (each as it runs
alone; `lit -sv test` and `python -m pytest ...` still work by themselves) and exits with 0
only if both pass. Run one after the other, each left the other core idle at its start and
end; side by side, pytest's workers take the cores whenever lit's tests leave them.

- pytest's output comes as it runs; lit's is kept and printed when pytest has finished (or
  at once if lit finishes later), under a header, then one line per suite with its status.
- Both runs share a folder of CP-SAT answers (test/solve_cache.py, through the
  WSDIALECTS_TEST_SOLVE_CACHE variable, set for this command only and removed at its end):
  a model that a lit RUN line and a pytest test both solve is solved once; every distinct
  model is still solved for real.
- Arguments after `--pytest` go to pytest, after `--lit` to lit (replacing the defaults'
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
    start = time.monotonic()
    try:
        with tempfile.TemporaryFile() as lit_out:
            lit_cmd = [*_lit_command(), *lit_args, "test"]
            lit = subprocess.Popen(lit_cmd, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                   stdout=lit_out, stderr=subprocess.STDOUT)
            pytest_cmd = [sys.executable, "-m", "pytest", *pytest_args]
            try:
                pytest_rc = subprocess.call(pytest_cmd, cwd=REPO, env=env)
                pytest_s = time.monotonic() - start
                lit_rc = lit.wait()
            except KeyboardInterrupt:
                lit.terminate()
                lit.wait()
                raise
            lit_s = time.monotonic() - start  # at least pytest's: lit's own end is in its output
            sys.stdout.flush()
            print(f"\n{'=' * 30} lit {' '.join(lit_args)} test {'=' * 30}", flush=True)
            lit_out.seek(0)
            sys.stdout.buffer.write(lit_out.read())
            sys.stdout.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    status = lambda rc: "passed" if rc == 0 else f"FAILED (exit status {rc})"  # noqa: E731
    print(f"\n{'=' * 30} test/run.py {'=' * 30}")
    print(f"lit:    {status(lit_rc)}")
    print(f"pytest: {status(pytest_rc)} ({pytest_s:.0f} s)")
    print(f"total:  {max(lit_s, pytest_s):.0f} s", flush=True)
    return 0 if lit_rc == 0 and pytest_rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
