"""A session cache of CP-SAT solves for the tests: a model solved once in a test run is not
solved again by a later test (nor by the other pytest-xdist worker).

test/conftest.py installs it around `CpSatBackend._run` (wsdialects/schedule/solvers.py),
the one place where CP-SAT solves. The same models recur: the stored-schedule tests, the
scheduled semantic tests, the schedule CLI tests and the fuzz budget solve the same loops
of the same kernels, each about 25 ms to a few seconds of CP-SAT.

- The key is the model itself (its proto in CP-SAT's binary form, which carries the hints
  and the objective) and every argument of `_run` that sets the solver's parameters
  (deterministic work limit, fast mode, LP relaxation, workers, the backend's `linear`),
  with OR-Tools' version. Only the wall-clock time limit is not in it: see the next point.
- Only an answer that the clock did not cut short is kept: a complete one (OPTIMAL or
  INFEASIBLE: the search ended by itself), or, with one worker, one that the deterministic work
  limit ended (`deterministic_time` reached `work`, whatever the status: a single-worker CP-SAT
  search is deterministic, so it stops at the same point with the same answer under any time
  limit that lets it get there; e.g. ws-schedule{arch=b200}'s bounded proofs on FA4). It is kept
  with the values of all variables, and reused only where this call's time limit is at least
  three times the wall time the real solve took; a call with less time solves for real (so
  time-limit tests still meet the limit).
- What the solver object is asked afterwards (`Value`, `StatusName`, `deterministic_time`,
  `wall_time`, `objective_value`) is what the real solve answered.
- Every answer is computed by CP-SAT at least once in the run, from the real model: the
  files live in the run's folder (`kernel_cache.run_folder()`: made by the pytest process
  that starts the run, shared by the workers it starts, removed at the end); nothing is
  kept between runs.
- Off (solved for real, nothing read or written) while a test uses `monkeypatch`: it may
  have replaced part of the solver or the model builders (test/conftest.py).
- The test command (`python test/run.py`) runs lit's suite, then pytest's, and shares the
  answers between them: it sets WSDIALECTS_TEST_SOLVE_CACHE to a folder of its own (removed
  at its end), which then holds the answers instead of the run's folder, and test/lit.cfg.py
  installs this wrapper in lit's `ws-opt` / `ws-schedule` processes (test/tools/zygote.py's
  server, before it forks them) only while that variable is set: `lit -sv test` alone solves
  every model for real, as before. The lit RUN lines and the pytest tests that solve the
  same model (same kernel, same options) solve it once per test command.
- A process about to solve a model holds a lock on the model's key (`flock`, released when it
  exits, also if it is killed): another process that needs the same model meanwhile waits for
  that answer instead of solving it twice, at most a third of its own time limit, and then
  solves it itself if the answer is not there (a solve that ran out of time keeps nothing).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile

from kernel_cache import run_folder

SLACK = 3.0  # a kept answer serves a call whose time limit is at least SLACK x its wall time
SHARED = "WSDIALECTS_TEST_SOLVE_CACHE"  # a folder shared by the lit and pytest runs of one test command
POLL = 0.02  # seconds between two looks at a lock that another process holds

enabled = True
stats = {"hits": 0, "solves": 0, "kept": 0}
_memory: dict[bytes, "_Answer"] = {}
_misses: set[bytes] = set()  # keys this process solved without a kept answer (out of time)


class _Answer:
    """What a finished CP-SAT solve answered, asked like a `CpSolver` after `Solve`."""

    def __init__(self, status_name: str, solution: list[int], deterministic_time: float, wall_time: float,
                 objective_value: float):
        self.status_name, self.solution = status_name, solution
        self.deterministic_time, self.wall_time, self.objective_value = deterministic_time, wall_time, objective_value

    def Value(self, var) -> int:  # noqa: N802 - CpSolver's names
        i = var.index
        return self.solution[i] if i >= 0 else 1 - self.solution[-i - 1]  # a negated literal: -index - 1

    def StatusName(self, status=None) -> str:  # noqa: N802
        return self.status_name

    def ObjectiveValue(self) -> float:  # noqa: N802
        return self.objective_value


def _key(backend, work, fast, linear) -> bytes:
    import ortools

    path = os.path.join(tempfile.gettempdir(), f"ws-solve-key-{os.getpid()}.pb")
    backend.model.export_to_file(path)  # CP-SAT's own serialization: ~2 ms for the largest models
    try:
        with open(path, "rb") as f:
            proto = f.read()
    finally:
        os.unlink(path)
    h = hashlib.blake2b(proto, digest_size=20)
    h.update(repr((work, fast, linear, backend.workers, getattr(backend, "linear", None),
                   backend.work_limit, ortools.__version__)).encode())
    return h.digest()


def _folder() -> str | None:
    """Where the answers are kept: the test command's shared folder, else this run's folder."""
    d = os.environ.get(SHARED)
    return d if d and os.path.isdir(d) else run_folder()


def _read(key: bytes) -> _Answer | None:
    if key in _memory:
        return _memory[key]
    d = _folder()
    if d is None:
        return None
    try:
        with open(os.path.join(d, "solve-" + key.hex()), "rb") as f:
            answer = _Answer(*pickle.load(f))
    except (OSError, EOFError, pickle.UnpicklingError, TypeError):
        return None
    _memory[key] = answer
    return answer


def _write(key: bytes, answer: _Answer) -> None:
    _memory[key] = answer
    d = _folder()
    if d is None:
        return
    tmp = os.path.join(d, f".solve-{key.hex()}.{os.getpid()}")
    with open(tmp, "wb") as f:
        pickle.dump((answer.status_name, answer.solution, answer.deterministic_time, answer.wall_time,
                     answer.objective_value), f)
    os.replace(tmp, os.path.join(d, "solve-" + key.hex()))  # whole or not at all, for the other worker


def _lock(key: bytes, wait: float):
    """An open lock file of `key`, locked by this process, or None: another process held it
    for `wait` seconds (or there is no folder)."""
    import fcntl
    import time

    d = _folder()
    if d is None:
        return None
    f = open(os.path.join(d, f"solve-{key.hex()}.lock"), "a")
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return f
        except BlockingIOError:
            if time.monotonic() >= deadline:
                f.close()
                return None
            time.sleep(POLL)


def _work_ended(backend, work) -> bool:
    """Whether a single-worker solve was ended by its deterministic work limit (not the clock)."""
    return work is not None and backend.workers == 1 and backend.solver.deterministic_time >= work


def install() -> None:
    """Wrap `CpSatBackend._run` (once per process)."""
    try:
        from wsdialects.schedule import solvers
    except ImportError:
        return
    real = solvers.CpSatBackend._run
    if getattr(real, "_session_cache", False):
        return

    def _run(self, time_limit, work, fast: bool, linear: bool | None = None):
        if not enabled:
            return real(self, time_limit, work, fast, linear)
        key = _key(self, work, fast, linear)
        answer = _read(key)
        lock = None
        if answer is None and key not in _misses:
            # another process may be solving this model now: wait for its answer (holding the lock)
            lock = _lock(key, time_limit / SLACK)
            answer = _read(key)
        try:
            if answer is not None and answer.wall_time * SLACK <= time_limit:
                stats["hits"] += 1
                self.solver = answer
                return getattr(self._cp, answer.status_name)
            stats["solves"] += 1
            status = real(self, time_limit, work, fast, linear)
            cp = self._cp
            if status in (cp.OPTIMAL, cp.INFEASIBLE) or _work_ended(self, work):
                s = self.solver
                r = s.ResponseProto()
                _write(key, _Answer(s.StatusName(status), list(r.solution), s.deterministic_time, s.wall_time,
                                    r.objective_value))
                stats["kept"] += 1
            else:
                _misses.add(key)  # not kept: the next call solves it at once, without waiting
            return status
        finally:
            if lock is not None:
                lock.close()  # releases the lock

    _run._session_cache = True
    solvers.CpSatBackend._run = _run
