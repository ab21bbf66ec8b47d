"""The scripts of bench/ as modules, for tests that run a script's main in the test's own process
(no interpreter start and imports of its own): `load("attention", monkeypatch).main()`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load(name: str, monkeypatch):
    """bench/<name>.py executed as a module; the sys.path it changes (a script puts the repository
    first) is restored after the test."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setattr(sys, "path", list(sys.path))
    spec.loader.exec_module(module)
    return module
