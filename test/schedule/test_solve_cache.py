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
