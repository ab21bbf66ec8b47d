"""Partitions as coroutines: a cooperative scheduler for `warp_group` regions.

Each partition runs in its own Python thread (the first one in the caller's), but only
one holds the baton at a time, so execution is a deterministic interleaving chosen by the
scheduler: round-robin by default, or a seeded random choice at every aref operation. A
partition gives up the baton when it must wait (`block_until`); when no partition
can move the scheduler raises `Deadlock`, naming what every partition waits on. Handing
the baton wakes exactly the partition that takes it (each waits on a lock of its own).

The threads are kept between runs (`_Worker`): a kernel runs its regions once per program
and interleaving, and starting threads took about a tenth of an interpreted run.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Callable

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


class _Task:
    """A partition: its body, whether its thread was started and whether it is done, what it
    waits for, and `baton` (held while the task may not run: its thread waits on it, and
    whoever hands the task the turn releases it)."""

    __slots__ = ("name", "body", "started", "done", "waiting_for", "waiting_desc", "baton")

    def __init__(self, name: str, body: Callable[[], None]):
        self.name, self.body = name, body
        self.started = self.done = False
        self.waiting_for: Callable[[], bool] | None = None
        self.waiting_desc = ""
        self.baton = threading.Lock()
        self.baton.acquire()

    def runnable(self) -> bool:
        return not self.done and (self.waiting_for is None or self.waiting_for())


class Scheduler:
    """Runs partition bodies concurrently, one step at a time.

    Only the task holding the turn (`current`) runs; it hands the turn to the next one by
    releasing that task's baton (or, at its first turn, starting its thread) and waits on its
    own, so a switch wakes one thread, and a turn the task keeps wakes none. The caller's
    thread runs the first task. A failure or a deadlock wakes every waiting task, which then
    unwinds (`_Abort`); tasks never started are then done without running."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed) if seed is not None else None
        self.current: _Task | None = None
        self.tasks: list[_Task] = []
        self.error: BaseException | None = None
        self.local = threading.local()
        self._abort = threading.Lock()  # taken by the one that wakes every task (`_wake_all`)
        self._woken = False
        self._count = threading.Lock()  # guards `_left`
        self._left = 0  # tasks not finished
        self._all_done = threading.Lock()  # released when `_left` reaches 0

    # -- called from partitions -------------------------------------------------

    def block_until(self, ready: Callable[[], bool], desc: str | Callable[[], str]) -> None:
        """Wait (letting other partitions run) until `ready()` holds; `desc` says what for (or
        makes the text, from values that `ready()` does not change, only when it must wait)."""
        if ready():
            return
        task = self.local.task
        task.waiting_for, task.waiting_desc = ready, desc() if callable(desc) else desc
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
        """Hand the turn from `task` (which holds it) to the next runnable task, and wait for
        it to come back (unless `task` is done)."""
        nxt = self._pick(task)
        if nxt is None:
            if not all(t.done for t in self.tasks):
                waits = "; ".join(
                    f"{t.name} waits for {t.waiting_desc}" for t in self.tasks if not t.done
                )
                self.error = self.error or Deadlock(f"deadlock: no partition can move: {waits}")
            self.current = None
            self._wake_all(task)
        else:
            self.current = nxt
            if nxt is not task:
                if nxt.started:
                    nxt.baton.release()
                else:  # its first turn: its thread starts
                    nxt.started = True
                    _worker().start(lambda: self._run_task(nxt))
                if task.done:
                    return
                task.baton.acquire()  # until the turn comes back, or a failure wakes every task
        if task.done:
            return
        if self.error is not None:
            raise _Abort()

    def _wake_all(self, me: _Task) -> None:
        """Once per run (after a failure or a deadlock, or when all are done): release every
        other started task's baton (the waiting ones find the error and unwind, the others
        never wait again), and finish the tasks never started."""
        with self._abort:
            if self._woken:
                return
            self._woken = True
            for t in self.tasks:
                if t is me:
                    continue
                if not t.started:
                    t.started = t.done = True
                    self._finish()
                elif t.baton.locked():
                    t.baton.release()

    def _finish(self) -> None:
        with self._count:
            self._left -= 1
            if self._left == 0:
                self._all_done.release()

    def _thread_main(self, task: _Task) -> None:
        self.local.task = task  # (it has the turn)
        try:
            if self.error is None:
                task.body()
        except _Abort:
            pass
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            if self.error is None:
                self.error = e
        finally:
            task.done = True
            task.waiting_for = None
            if self.error is not None:
                self.current = None
                self._wake_all(task)
            else:
                try:
                    self._switch(task)
                except _Abort:
                    pass

    def run(self, bodies: list[tuple[str, Callable[[], None]]]) -> None:
        """Run all bodies to completion (or raise the first error / Deadlock)."""
        self.tasks = [_Task(name, body) for name, body in bodies]
        self._left = len(self.tasks)
        self._all_done.acquire()
        first = self.rng.choice(self.tasks) if self.rng is not None else self.tasks[0]
        self.current = first
        first.started = True
        self._run_task(first)  # in this thread; the others start at their first turn
        self._all_done.acquire()  # every task finished
        if self.error is not None:
            raise self.error

    def _run_task(self, task: _Task) -> None:
        try:
            self._thread_main(task)
        except BaseException as e:  # noqa: BLE001 - (it catches the body's own) re-raised by `run`
            self.error = self.error or e
        finally:
            self._finish()
