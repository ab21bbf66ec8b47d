"""Twill-style optimal scheduling: dependence graphs, machine models, modulo
scheduling and the joint software-pipelining / warp-assignment problem.

``solve(graph)`` runs Algorithm 1 and returns a :class:`Schedule`.
"""

from __future__ import annotations

from .graph import Edge, Graph, GraphError, Op, Warps, graph_from_dict, graph_from_json, load_graph
from .solution import Placement, Schedule
from .solvers import SOLVERS, SolverTimeout


def solve(graph, solver: str = "cpsat", time_limit: float = 120.0, normalize: int | None = None) -> Schedule:
    """Optimal modulo schedule + warp assignment for ``graph`` (a :class:`Graph`,
    a dict in the JSON format, or a path).  ``normalize=U`` first rescales all
    cycle counts with the §5.2 integer program so that they sum to at most U."""
    from .joint import twill

    if isinstance(graph, str):
        graph = load_graph(graph)
    elif isinstance(graph, dict):
        graph = graph_from_dict(graph)
    if normalize is not None:
        from .normalize import normalize_graph

        graph = normalize_graph(graph, normalize)
    return twill(graph, solver=solver, time_limit=time_limit)


__all__ = [
    "Edge", "Graph", "GraphError", "Op", "Placement", "SOLVERS", "Schedule", "SolverTimeout", "Warps",
    "graph_from_dict", "graph_from_json", "load_graph", "solve",
]
