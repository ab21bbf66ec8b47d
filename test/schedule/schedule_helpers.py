"""Shared helpers for the scheduler tests (a module of its own, not conftest.py:
test/python has a conftest too, and both directories run in one pytest call)."""

import os

LIT_DIR = os.path.join(os.path.dirname(__file__), "lit")


def fig1_graph(**extra):
    """The paper's Fig. 1: S = gemm, P = exp, O += gemm; unit costs of 1."""
    g = {
        "units": {"TC": 1, "EXP": 1},
        "ops": [
            {"name": "S", "uses": {"TC": [1]}},
            {"name": "P", "uses": {"EXP": [1]}},
            {"name": "O", "uses": {"TC": [1]}},
        ],
        "edges": [
            {"from": "S", "to": "P", "delay": 1, "distance": 0},
            {"from": "P", "to": "O", "delay": 1, "distance": 0},
            {"from": "O", "to": "O", "delay": 1, "distance": 1},
        ],
    }
    g.update(extra)
    return g
