"""Running cases in child processes, so that nothing a case does can hang or
crash the fuzzer: each case is a forked child (its own session, an
address-space limit, stdout/stderr captured), watched by the parent with a
deadline per phase.  A child that runs past its deadline is killed (its
process group, by id) and judged by the phase it was in: mutating ->
`fuzzer-error`, compiling -> `timeout`, comparing -> `skipped`.  A child that
dies (a signal, `os._exit`, out of memory) is judged the same way, as
`internal` while compiling.  A child keeps numpy's BLAS to one thread
(`single_threaded_blas`): the cases are the parallelism.

    for case, data, result in run_cases(cases, job, jobs=2, timeout=60):
        ...
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import wait

from .case import Case, Result

# A case runs as job(case, send): send(("input", bytes)), send(("phase", name)),
# and returns its Result.
Job = Callable[[Case, Callable[[tuple], None]], Result]


def single_threaded_blas() -> bool:
    """Make numpy's BLAS (OpenBLAS, or MKL) run on the calling thread only; True if it could.

    The cases already run in parallel (``--jobs``), and the interpreter's matmuls are
    small: OpenBLAS's own threads (one per core, spinning while they wait) then
    oversubscribe the machine. Measured 2026-11-25 on 2 shared cores, 128x64 @ 64x128 and
    256x256 @ 256x256 float64 products: 2.0-2.7 s with the default threads against
    0.3-0.4 s with one, and 15-40 s against 1.0 s with four processes at once; with
    --jobs 16 on 16 cores every case would wait on 256 BLAS threads."""
    import ctypes

    os.environ.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")  # for any subprocess
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "blas" in line or "mkl_rt" in line}
    except OSError:
        return False
    done = False
    for path in sorted(p for p in paths if p.startswith("/")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                     "openblas_set_num_threads64_", "openblas_set_num_threads", "MKL_Set_Num_Threads"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn(1)
                done = True
                break
    return done


def _child(job: Job, case: Case, conn, memory_mb: int) -> None:
    """The body of a case's process."""
    try:
        import gc

        gc.freeze()  # the parent's objects: never scanned (nor copied page by page) by this child's collections
        os.setsid()  # its own process group: the parent kills it and its children as one
        for sig in (signal.SIGTERM, signal.SIGINT):  # not the parent's handlers (it writes the table)
            signal.signal(sig, signal.SIG_DFL)
        single_threaded_blas()  # the parallelism is across cases (see its doc)
        import faulthandler

        faulthandler.disable()  # a crash is the parent's to report (pytest's handler writes to the terminal)
        if memory_mb:
            import resource

            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        sink = os.open(os.devnull, os.O_WRONLY)
        os.dup2(sink, 1)  # C-level output (solvers, LLVM) must not reach the terminal
        os.dup2(sink, 2)
        conn.send(("phase", "mutate"))
        result = job(case, conn.send)
        conn.send(("done", result))
    except BaseException as e:  # noqa: BLE001 - reported, then the child ends
        try:
            conn.send(("done", Result("fuzzer-error", f"{type(e).__name__}: {e}"[:500],
                                      details={"traceback": traceback.format_exc()[-4000:]})))
        except Exception:  # noqa: BLE001 - the parent sees the child die instead
            pass
    finally:
        os._exit(0)


class _Running:
    def __init__(self, case: Case, proc, conn, timeout: float):
        self.case, self.proc, self.conn = case, proc, conn
        self.phase = "start"
        self.data: bytes | None = None
        self.result: Result | None = None
        self.started = time.monotonic()
        self.deadline = self.started + timeout

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.kill()
        except Exception:  # noqa: BLE001 - already gone
            pass
        self.proc.join(5)


def _blame(phase: str, what: str) -> Result:
    """The outcome of a child that did not finish, by the phase it was in."""
    if phase == "compile":
        return Result("timeout" if what.startswith("ran past") else "internal", f"the compiler {what}")
    if phase == "semantic":
        return Result("skipped", f"the comparison {what}")
    return Result("fuzzer-error", f"the fuzzer {what} while making the input")


def run_cases(cases: Iterable[Case], job: Job, jobs: int = 1, timeout: float = 60.0,
              semantic_timeout: float = 60.0, memory_mb: int = 4096,
              stop: Callable[[], bool] = lambda: False) -> Iterator[tuple[Case, bytes | None, Result]]:
    """Run each case in its own child, ``jobs`` at a time; yield (case, input,
    result) as they finish.  ``timeout`` bounds making the input and compiling,
    ``semantic_timeout`` the comparison.  When ``stop()`` turns true (checked
    every 0.2 s) the running cases are killed and the rest not started."""
    ctx = multiprocessing.get_context("fork")
    pending = list(cases)[::-1]
    running: list[_Running] = []
    try:
        while (pending or running) and not stop():
            while pending and len(running) < max(1, jobs):
                case = pending.pop()
                parent, child = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(job, case, child, memory_mb), daemon=True)
                proc.start()
                child.close()
                running.append(_Running(case, proc, parent, timeout))
            wait([r.conn for r in running] + [r.proc.sentinel for r in running], timeout=0.2)
            now = time.monotonic()
            for r in list(running):
                _drain(r, timeout, semantic_timeout)
                finished = r.result is not None
                if not finished and not r.proc.is_alive():
                    _drain(r, timeout, semantic_timeout)
                    if r.result is None:
                        code = r.proc.exitcode
                        how = f"signal {signal.Signals(-code).name}" if code and code < 0 else f"status {code}"
                        r.result = _blame(r.phase, f"process died ({how})")
                    finished = True
                elif not finished and now > r.deadline:
                    r.kill()
                    limit = semantic_timeout if r.phase == "semantic" else timeout
                    r.result = _blame(r.phase, f"ran past {limit:g} s")
                    finished = True
                if finished:
                    r.kill() if r.proc.is_alive() else r.proc.join(5)
                    r.conn.close()
                    running.remove(r)
                    if not r.result.seconds:
                        r.result.seconds = time.monotonic() - r.started
                    yield r.case, r.data, r.result
    finally:
        for r in running:
            r.kill()


def _drain(r: _Running, timeout: float, semantic_timeout: float) -> None:
    """Read what the child sent so far."""
    try:
        while r.result is None and r.conn.poll():
            kind, value = r.conn.recv()
            if kind == "input":
                r.data = value
            elif kind == "phase":
                r.phase = value
                r.deadline = time.monotonic() + (semantic_timeout if value == "semantic" else timeout)
            elif kind == "done":
                r.result = value
    except (EOFError, OSError):
        pass


def scratch_dir() -> str:
    """A folder for the cases' files (removed by the caller)."""
    return tempfile.mkdtemp(prefix="wsfuzz-")
