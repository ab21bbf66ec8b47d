"""Partitions as coroutines: a cooperative scheduler for `warp_group` regions.

Each partition runs in its own Python thread, but only one holds the baton at a
time, so execution is a deterministic interleaving chosen by the scheduler:
round-robin by default, or a seeded random choice at every aref operation. A
partition gives up the baton when it must wait (`block_until`); when no partition
can move the scheduler raises `Deadlock`, naming what every partition waits on.

The threads are kept between runs (`_Worker`): a kernel runs its regions once per program
and interleaving, and starting threads took about a tenth of an interpreted run.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from wsdialects.interpreter.values import InterpretError


class Deadlock(InterpretError):
    """No partition can make progress."""


class _Abort(BaseException):
    """Unwinds a partition thread after another partition failed."""


class _Worker:
    """A thread that runs one job after another (`start`); idle ones wait in `_idle`. A job
    never raises (`Scheduler._run_task` catches everything)."""

    def __init__(self):
        self.job: Callable[[], None] | None = None
        self.wake = threading.Lock()
        self.wake.acquire()  # released by `start`
        threading.Thread(target=self._loop, daemon=True).start()

    def start(self, job: Callable[[], None]) -> None:
        self.job = job
        self.wake.release()

    def _loop(self) -> None:
        while True:
            self.wake.acquire()
            job, self.job = self.job, None
            try:
                job()
            finally:
                with _pool_lock:
                    _idle.append(self)


_idle: list[_Worker] = []
_pool_lock = threading.Lock()


def _worker() -> _Worker:
    with _pool_lock:
        if _idle:
            return _idle.pop()
    return _Worker()


def _forget_workers() -> None:
    """In a forked child the workers' threads do not exist: start afresh."""
    global _pool_lock
    _idle.clear()
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


@dataclass(eq=False)
class _Task:
    name: str
    body: Callable[[], None]
    done: bool = False
    waiting_for: Callable[[], bool] | None = None
    waiting_desc: str = ""
    finished: threading.Lock = field(default_factory=threading.Lock, repr=False)  # held while it runs

    def runnable(self) -> bool:
        return not self.done and (self.waiting_for is None or self.waiting_for())


class Scheduler:
    """Runs partition bodies concurrently, one step at a time."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed) if seed is not None else None
        self.cond = threading.Condition()
        self.current: _Task | None = None
        self.tasks: list[_Task] = []
        self.error: BaseException | None = None
        self.local = threading.local()

    # -- called from partitions -------------------------------------------------

    def block_until(self, ready: Callable[[], bool], desc: str) -> None:
        """Wait (letting other partitions run) until `ready()` holds."""
        if ready():
            return
        task = self.local.task
        task.waiting_for, task.waiting_desc = ready, desc
        self._switch(task)
        task.waiting_for, task.waiting_desc = None, ""

    def yield_point(self) -> None:
        """A point where a random interleaving may switch partitions."""
        if self.rng is not None and self.rng.random() < 0.5:
            self._switch(self.local.task)

    # -- internals ----------------------------------------------------------------

    def _pick(self, after: _Task) -> _Task | None:
        ready = [t for t in self.tasks if t.runnable()]
        if not ready:
            return None
        if self.rng is not None:
            return self.rng.choice(ready)
        i = self.tasks.index(after)
        order = self.tasks[i + 1 :] + self.tasks[: i + 1]
        return next(t for t in order if t.runnable())

    def _switch(self, task: _Task) -> None:
        with self.cond:
            nxt = self._pick(task)
            if nxt is None:
                if all(t.done for t in self.tasks):
                    self.current = None
                else:
                    waits = "; ".join(
                        f"{t.name} waits for {t.waiting_desc}" for t in self.tasks if not t.done
                    )
                    self.error = self.error or Deadlock(f"deadlock: no partition can move: {waits}")
                    self.current = None
                self.cond.notify_all()
            else:
                self.current = nxt
                self.cond.notify_all()
            if task.done:
                return
            while self.current is not task:
                if self.error is not None:
                    raise _Abort()
                self.cond.wait()
            if self.error is not None:
                raise _Abort()

    def _thread_main(self, task: _Task) -> None:
        self.local.task = task
        with self.cond:
            while self.current is not task and self.error is None:
                self.cond.wait()
        try:
            if self.error is None:
                task.body()
        except _Abort:
            pass
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            with self.cond:
                if self.error is None:
                    self.error = e
        finally:
            task.done = True
            task.waiting_for = None
            if self.error is not None:
                with self.cond:
                    self.current = None
                    self.cond.notify_all()
            else:
                try:
                    self._switch(task)
                except _Abort:
                    pass

    def run(self, bodies: list[tuple[str, Callable[[], None]]]) -> None:
        """Run all bodies to completion (or raise the first error / Deadlock)."""
        self.tasks = [_Task(name, body) for name, body in bodies]
        for t in self.tasks:
            t.finished.acquire()
            _worker().start(lambda t=t: self._run_task(t))
        with self.cond:
            self.current = self.rng.choice(self.tasks) if self.rng is not None else self.tasks[0]
            self.cond.notify_all()
        for t in self.tasks:
            t.finished.acquire()
        if self.error is not None:
            raise self.error

    def _run_task(self, task: _Task) -> None:
        try:
            self._thread_main(task)
        except BaseException as e:  # noqa: BLE001 - (it catches the body's own) re-raised by `run`
            self.error = self.error or e
        finally:
            task.finished.release()
