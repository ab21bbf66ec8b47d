"""A solver-free proof that the joint problem has no schedule at some (II, L).

Algorithm 1 asks, at each II, whether a joint schedule of length at most
``L_max = ceil(Len(M) / II) * II`` exists.  Often it does not for a reason that
needs no search, only counting residues:

- **co-location**: a value crossing warps pays its producer's spill cost; when
  the longest path through an edge plus that cost cannot fit in ``L_max``, both
  ends share a warp (and a variable-latency end, always on W_vl, makes the
  query infeasible).  Loop-carried values stay on their warp when
  ``local_recurrences`` is set; with one compute warp every fixed-latency op is
  on it.
- **blocking windows**: on one warp, an op that blocks on an incoming result
  cannot issue while another (non-asynchronous) op of that warp executes.  Take
  the warp's longest-running op ``o`` (``c`` cycles): every other blocking op
  issues outside its ``c`` residues, and blocking ops that cannot share a
  residue (one of them executes for a cycle or more, or both need a unit at
  issue beyond its capacity) need distinct ones, so ``II >= c + their number``.

Flash attention with head dim 64, split over two warps: the softmax chain cannot
afford a 32-cycle spill, so QK^T, its mask, the exponentials (32 cycles on the
SFU) and P.V share a warp, whose four blocking ops need II >= 32 + 4 = 36; the
solver gave up on II 33-35 after a second of work each.

:func:`joint_bound` returns the reason as text, or None when it proves nothing.
"""

from __future__ import annotations

from .graph import Graph


def _paths(graph: Graph, ii: int) -> tuple[dict[str, int], dict[str, int]] | None:
    """head[v]: the least start of v (longest path from cycle 0, edge weights
    ``delay - distance*II``); tail[v]: the least number of cycles from v's start
    to the end of the schedule.  None if the weights have a positive cycle."""
    names = [op.name for op in graph.ops]
    head = dict.fromkeys(names, 0)
    tail = {op.name: op.cycles for op in graph.ops}
    for _ in range(len(names) + 1):
        changed = False
        for e in graph.edges:
            w = e.delay - e.distance * ii
            if head[e.src] + w > head[e.dst]:
                head[e.dst] = head[e.src] + w
                changed = True
            if w + tail[e.dst] > tail[e.src]:
                tail[e.src] = w + tail[e.dst]
                changed = True
        if not changed:
            return head, tail
    return None


def _groups(graph: Graph, ii: int, length: int, head: dict[str, int], tail: dict[str, int]):
    """Sets of ops that must share a warp in any schedule of length <= length,
    or a reason why no schedule exists."""
    parent = {op.name: op.name for op in graph.ops}

    def find(v: str) -> str:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    vl = [op.name for op in graph.ops if op.variable_latency]
    fixed = [op.name for op in graph.ops if not op.variable_latency]
    compute = graph.warps.count if graph.warps else 1
    for group in (vl, fixed if compute == 1 else []):
        for v in group[1:]:
            union(group[0], v)
    several = compute + (1 if vl else 0) > 1
    for e in graph.edges:
        if e.src == e.dst:
            continue
        src, dst = graph.op(e.src), graph.op(e.dst)
        if (graph.warps is not None and graph.warps.local_recurrences and e.distance > 0
                and not (src.variable_latency or dst.variable_latency)):
            union(e.src, e.dst)
        spill = src.spill_cost if several else 0
        if spill > 0 and head[e.src] + e.delay + spill - e.distance * ii + tail[e.dst] > length:
            if src.variable_latency != dst.variable_latency:
                return f"'{e.src}' -> '{e.dst}' crosses warps and its spill cost does not fit in L = {length}"
            union(e.src, e.dst)
    groups: dict[str, list[str]] = {}
    for op in graph.ops:
        groups.setdefault(find(op.name), []).append(op.name)
    return list(groups.values())


def _share_issue(graph: Graph, a: str, b: str) -> bool:
    """Whether two ops that both issue at one residue overfill a unit there."""
    ua, ub = graph.op(a).uses, graph.op(b).uses
    return any(ua[u][:1] and ub[u][:1] and ua[u][0] + ub[u][0] > cap
               for u, cap in graph.units.items() if u in ua and u in ub)


def joint_bound(graph: Graph, ii: int, length: int) -> str | None:
    """Why the joint problem has no schedule at ``ii`` of length at most
    ``length`` (see the module docstring), or None.  ``ii`` must be at least the
    recurrence bound."""
    paths = _paths(graph, ii)
    if paths is None:
        return None
    head, tail = paths
    if max(head[op.name] + tail[op.name] for op in graph.ops) > length:
        return f"the critical path does not fit in L = {length}"
    groups = _groups(graph, ii, length, head, tail)
    if isinstance(groups, str):
        return groups
    blocked = {e.dst for e in graph.edges if e.blocking}
    for group in groups:
        busy = [v for v in group if graph.op(v).cycles > 0 and not graph.is_async(v)]
        waits = [v for v in group if v in blocked]
        for o in busy:
            c = graph.op(o).cycles
            others = [v for v in waits if v != o]
            if not others:
                continue
            if c >= ii:
                return f"'{others[0]}' blocks on a warp where '{o}' always executes"
            # Blocking ops that execute take a residue each; the others one each
            # among those that cannot issue together.
            clique = [v for v in others if v in busy]
            for v in others:
                if v not in busy and all(_share_issue(graph, v, u) for u in clique if u not in busy):
                    clique.append(v)
            if c + len(clique) > ii:
                return (f"on the warp of '{o}' ({c} cycles) the blocking ops {', '.join(sorted(clique))} "
                        f"need {c + len(clique)} residues")
    return None
