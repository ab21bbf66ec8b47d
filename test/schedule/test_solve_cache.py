"""test/solve_cache.py as the test command (test/run.py) uses it: one folder of CP-SAT answers
(WSDIALECTS_TEST_SOLVE_CACHE) shared by separate processes (lit's `ws-schedule` / `ws-opt`,
pytest's workers). A model solved by one process is answered to the next from the folder,
with the same schedule; a changed model is solved for real; without the variable nothing is
shared between processes."""

import json
from pathlib import Path

import pytest

import solve_cache

pytest.importorskip("ortools")

TEST = Path(__file__).resolve().parents[1]
FIG1 = (TEST / "schedule" / "lit" / "fig1.json").read_text()


@pytest.fixture
def answers(tmp_path, monkeypatch):
    """The test command's folder of answers, in this process; each call of `_ws_schedule` starts
    like a new process (nothing in solve_cache's memory; the counts from zero)."""
    folder = tmp_path / "answers"
    folder.mkdir()
    monkeypatch.setenv(solve_cache.SHARED, str(folder))
    monkeypatch.delenv("WSDIALECTS_TEST_RUN_DIR", raising=False)  # not this pytest run's folder
    solve_cache.enabled = True  # test/conftest.py turns it off for a test that uses monkeypatch
    memory, misses, stats = dict(solve_cache._memory), set(solve_cache._misses), dict(solve_cache.stats)
    yield folder
    solve_cache._memory.clear()
    solve_cache._memory.update(memory)
    solve_cache._misses.clear()
    solve_cache._misses.update(misses)
    solve_cache.stats.update(stats)


def _ws_schedule(graph: Path, capsys) -> tuple[dict, dict]:
    """`ws-schedule GRAPH` as a fresh process would run it: (its schedule without the wall-clock
    seconds, solve_cache's counts)."""
    from wsdialects.tools.ws_schedule import main

    solve_cache._memory.clear()
    solve_cache._misses.clear()
    solve_cache.stats.update(solves=0, hits=0, kept=0)
    capsys.readouterr()
    assert main([str(graph)]) == 0
    out = json.loads(capsys.readouterr().out)
    out.pop("solve_seconds")
    return out, dict(solve_cache.stats)


def _kept(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock"))


def test_a_hit_is_the_same_schedule_and_a_changed_model_misses(answers, tmp_path, capsys):
    graph = tmp_path / "fig1.json"
    graph.write_text(FIG1)

    first, stats = _ws_schedule(graph, capsys)
    assert stats["solves"] > 0 and stats["hits"] == 0 and stats["kept"] == stats["solves"], stats
    kept = _kept(answers)
    assert len(kept) == stats["kept"]

    again, stats = _ws_schedule(graph, capsys)  # the same models: read from the folder, not solved
    assert stats == {"solves": 0, "hits": len(kept), "kept": 0}, stats
    assert again == first and first["II"] == 2 and first["L"] == 4

    # one delay changed: every model differs and is solved for real, and the schedule differs
    graph.write_text(FIG1.replace('"to": "O", "delay": 1', '"to": "O", "delay": 3'))
    changed, stats = _ws_schedule(graph, capsys)
    assert stats["solves"] > 0 and stats["hits"] == 0, stats
    assert changed != first
    assert len(_kept(answers)) == len(kept) + stats["kept"]


def test_off_without_a_folder(tmp_path, monkeypatch, capsys):
    """`lit -sv test` alone (no WSDIALECTS_TEST_SOLVE_CACHE) outside a pytest run: nothing is
    read or written, every model is solved."""
    monkeypatch.delenv(solve_cache.SHARED, raising=False)
    monkeypatch.delenv("WSDIALECTS_TEST_RUN_DIR", raising=False)
    solve_cache.enabled = True
    memory = dict(solve_cache._memory)
    try:
        graph = tmp_path / "fig1.json"
        graph.write_text(FIG1)
        first, stats = _ws_schedule(graph, capsys)
        again, stats2 = _ws_schedule(graph, capsys)
    finally:
        solve_cache._memory.update(memory)
    assert stats["hits"] == stats2["hits"] == 0 and stats["solves"] == stats2["solves"] > 0
    assert again == first
    assert list(tmp_path.iterdir()) == [graph]


def _pigeons(workers: int = 1):
    """Nine pigeons in eight holes as pairwise clauses: infeasible, and not proved within a
    twentieth of a second of CP-SAT's deterministic work."""
    from wsdialects.schedule.solvers import CpSatBackend

    b = CpSatBackend(workers)
    x = [[b.bool(f"x{p}_{h}") for h in range(8)] for p in range(9)]
    for p in range(9):
        b.clause(x[p])
    for h in range(8):
        for p in range(9):
            for q in range(p):
                b.clause([], [x[p][h], x[q][h]])
    return b


def test_an_answer_its_work_limit_ended_is_kept(answers):
    """A single-worker search is deterministic: one that its work limit ended (UNKNOWN here)
    ends the same way in any process, so it is kept and answered to the next one; one that
    the clock ended, or one of two workers, is not kept."""
    solve_cache._memory.clear()
    solve_cache.stats.update(solves=0, hits=0, kept=0)
    first = _pigeons()
    status = first._run(60, 0.05, False)
    name, work = first.solver.StatusName(status), first.solver.deterministic_time
    assert name == "UNKNOWN" and work >= 0.05 and solve_cache.stats == {"solves": 1, "hits": 0, "kept": 1}

    solve_cache._memory.clear()  # as a new process: from the folder
    again = _pigeons()
    assert again.solver is None and again._run(60, 0.05, False) == status
    assert again.solver.StatusName() == name and again.solver.deterministic_time == work
    assert solve_cache.stats == {"solves": 1, "hits": 1, "kept": 1}

    clock = _pigeons()  # too little time to reuse the answer, nor to reach the work limit
    assert clock.solver is None and clock._run(1e-3, 0.05, False) == status
    assert clock.solver.deterministic_time < 0.05
    _pigeons(workers=2)._run(60, 0.05, False)
    assert solve_cache.stats == {"solves": 3, "hits": 1, "kept": 1}
    assert len(_kept(answers)) == 1
