"""A mutation fuzzer for the compiler: `python -m wsdialects.fuzz`.

It mutates the bundled kernels (and the scheduler's JSON graphs), runs each
mutant through a pipeline of `ws-opt` (or `ws-schedule`) in a child process
with a time limit, and sorts the outcomes: ok, located error, and the bad ones
(unlocated error, internal error, time-out, mismatch, output that does not
re-parse, a failure of the fuzzer itself).  Three modes:

- `syntax`: textual mutations (tokens, lines, numbers, attributes, types,
  truncation, raw bytes) and IR-level ones (tile shapes, `tile.num_warps`,
  schedule attributes) through every pipeline (ws-specialize and ws-hopper
  variants, `-t llvm`, ws-schedule when OR-Tools is installed);
- `semantic`: mutations that keep kernels valid (tile resizing, warp counts);
  the kernel is interpreted before and after the pipeline on the same random
  inputs (and a random interleaving of the warp groups) and must compute the
  same arrays bit for bit; a deadlock after but not before is a mismatch;
- `schedule`: random (dependence-consistent or arbitrary) `ws.stage` /
  `ws.order` / `ws.warp` schedules, mutated solver schedules, compared like
  `semantic`; and malformed `ws-schedule` graphs.

    python -m wsdialects.fuzz --mode syntax --seed 1 --cases 2000 --jobs 2 --out fuzz-out
    -> fuzz-out/outcomes.md, fuzz-out/repro/<outcome>/case-N.{mlir,json,txt}

``outcomes.md`` is rewritten as the run goes (a stopped run leaves "partial: K
of N cases"); ``--start S --count N`` runs one shard of a seed's cases and
``python -m wsdialects.fuzz merge A.md B.md -o ALL.md`` sums shards (see
``__main__.py`` and ``report.py``); ``--resume TABLE`` finishes a stopped run;
``--case N`` replays one case.

In Python: ``fuzz("semantic", seed=1, cases=100).counts``.
"""

from __future__ import annotations

import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .case import BAD, MODES, OUTCOMES, Case, Result, draw, execute, make_input
from .corpus import Seed, pipelines, seed_graphs, seed_kernels
from .pool import Job, run_cases, scratch_dir
from .report import digest

__all__ = ["BAD", "MODES", "OUTCOMES", "Campaign", "Plan", "fuzz", "plan"]


@dataclass
class Campaign:
    """What a run found: every case with its input and result, in case order."""

    mode: str
    seed: int
    results: list[tuple[Case, bytes | None, Result]]
    seconds: float

    @property
    def counts(self) -> Counter:
        return Counter(r.outcome for _, _, r in self.results)

    @property
    def bad(self) -> list[tuple[Case, bytes | None, Result]]:
        return [x for x in self.results if x[2].outcome in BAD]


# not reached by a case: the docs generator, the GPU runtime (torch, CUDA), command-line mains
_NOT_WARMED = ("wsdialects.docgen", "wsdialects.runtime", "wsdialects.autotune")


def warm_up() -> None:
    """Import every module a case can reach once, before the children are forked from
    us: no child imports anything of ours, so a run is not broken by sources edited
    under it (a child importing a new module against old ones loaded: ImportError)."""
    import importlib
    import pkgutil

    import wsdialects
    from wsdialects.passes import available_passes

    for m in pkgutil.walk_packages(wsdialects.__path__, "wsdialects."):
        if m.name.startswith(_NOT_WARMED) or m.name.endswith(".__main__"):
            continue
        try:
            importlib.import_module(m.name)
        except Exception:  # noqa: BLE001 - a module that does not import fails in its cases
            pass
    for load in available_passes().values():
        try:
            load()
        except Exception:  # noqa: BLE001
            pass
    import numpy.random  # noqa: F401 - numpy imports it on first use: in every child (~20 ms each), not here
    from wsdialects import diagnostics

    diagnostics.parse_memo = True  # the semantic check parses again the text the compile read (a copy instead)

    try:
        from wsdialects.schedule.solvers import import_cp_model

        import_cp_model()  # as ws-schedule imports it: without pandas (~0.3 s), which no case uses
    except ImportError:
        pass


@dataclass
class Plan:
    """What a run's cases are drawn from: the seed kernels and graphs, the pipelines."""

    mode: str
    kernels: list[Seed]
    graphs: list[Seed]
    pipes: list[list[str]]

    @property
    def pipeline_names(self) -> list[str]:
        return [" ".join(p) for p in self.pipes]

    @property
    def corpus(self) -> str:
        return digest(s.name + "\0" + s.text for s in [*self.kernels, *self.graphs])


def plan(mode: str, corpus: list[str] = (), solver: bool | None = None) -> Plan:
    """The seeds and pipelines of ``mode``; ``solver`` False draws as on a machine
    without OR-Tools (no ws-schedule pipelines), None as this one."""
    if mode not in MODES:
        raise ValueError(f"unknown mode '{mode}' (choose from {', '.join(MODES)})")
    kernels = seed_kernels(list(corpus))
    graphs = seed_graphs(list(corpus)) if mode == "schedule" else []
    if not kernels:
        raise ValueError("no seed kernels found: run from a checkout, or give --corpus DIR")
    return Plan(mode, kernels, graphs, pipelines(mode, solver))


def fuzz(mode: str, seed: int = 0, cases: int = 100, jobs: int = 1, timeout: float = 60.0,
         semantic_timeout: float = 60.0, corpus: list[str] = (), first: int = 0, memory_mb: int = 4096,
         job: Job | None = None, progress: Callable[[int, Case, Result], None] | None = None,
         sink: Callable[[Case, bytes | None, Result], None] | None = None,
         drawn_from: Plan | None = None, stop: Callable[[], bool] = lambda: False,
         indices: list[int] | None = None) -> Campaign:
    """Run cases ``first`` .. ``first + cases - 1`` of ``(mode, seed)`` (or exactly
    ``indices``, the cases a stopped run left): the same cases, whatever ``first`` and
    ``cases`` (shards of a run are the run). ``sink`` gets each result as it finishes;
    ``drawn_from`` is the `plan` (default: this machine's); the run ends early (its
    results so far) once ``stop()`` is true."""
    p = drawn_from or plan(mode, corpus)
    if p.mode != mode:
        raise ValueError(f"a {p.mode} plan for a {mode} run")
    kmap = {k.name: k for k in p.kernels}
    gmap = {g.name: g for g in p.graphs}
    todo = range(first, first + cases) if indices is None else indices
    drawn = [draw(mode, seed, i, p.kernels, p.graphs, p.pipes) for i in todo]
    warm_up()
    workdir = scratch_dir()

    def default_job(case: Case, send) -> Result:
        data = make_input(case, kmap, gmap)
        send(("input", data))
        return execute(case, data, workdir, lambda phase: send(("phase", phase)))

    start = time.monotonic()
    results = []
    try:
        for n, (case, data, result) in enumerate(run_cases(drawn, job or default_job, jobs, timeout,
                                                           semantic_timeout, memory_mb, stop)):
            results.append((case, data, result))
            if sink is not None:
                sink(case, data, result)
            if progress is not None:
                progress(n + 1, case, result)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    results.sort(key=lambda x: x[0].index)
    return Campaign(mode, seed, results, time.monotonic() - start)
