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
    group_of = {v: tuple(group) for group in groups for v in group}
    several = graph.warps is not None and graph.warps.count > 1
    for group in groups:
        for o in group:
            op = graph.op(o)
            if op.cycles <= 0 or graph.is_async(o):
                continue
            c = op.cycles
            # The blocking ops that may share o's warp: its group's, or with
            # several compute warps (o a compute op) any compute op's.
            spread = several and not op.variable_latency
            pool = [v.name for v in graph.ops if not v.variable_latency] if spread else group
            others = [v for v in pool if v in blocked and v != o]
            if not others:
                continue
            if c >= ii and not spread:
                return f"'{others[0]}' blocks on a warp where '{o}' always executes"
            # Blocking ops that execute take a residue each; the others one each
            # among those that cannot issue together.
            busy = [v for v in others if graph.op(v).cycles > 0 and not graph.is_async(v)]
            clique = list(busy)
            for v in others:
                if v not in busy and all(_share_issue(graph, v, u) for u in clique if u not in busy):
                    clique.append(v)
            if c + _span(graph, clique) <= ii:
                continue
            if not spread:
                return (f"on the warp of '{o}' ({c} cycles) the blocking ops {', '.join(sorted(clique))} "
                        f"need {c + _span(graph, clique)} residues")
            # Some must go to other warps; the paths between them and o then
            # cross warps and pay a spill.
            reason = _crossings(graph, ii, length, head, tail, o, clique, max(ii - c, 0), group_of)
            if reason is not None:
                return reason
    return None


def _span(graph: Graph, ops) -> int:
    """The fewest consecutive residues outside a warp's longest op that can hold
    the issues of ``ops`` (blocking ops of that warp, pairwise unable to share a
    residue): each but the last needs its own cycles (an executing op) or one
    residue before the next issue."""
    gaps = [max(graph.op(v).cycles, 1) if not graph.is_async(v) else 1 for v in ops]
    return sum(gaps) - max(gaps) + 1 if gaps else 0


def _from(graph: Graph, ii: int, source: str, forward: bool) -> dict[str, tuple[int, int]]:
    """For each op reached from ``source`` (along edges, or against them): the
    longest path's length and the least spill cost of an edge on it."""
    far = {source: (0, 1 << 62)}
    for _ in range(len(graph.ops) + 1):
        changed = False
        for e in graph.edges:
            a, b = (e.src, e.dst) if forward else (e.dst, e.src)
            if a not in far or e.src == e.dst:
                continue
            d = far[a][0] + e.delay - e.distance * ii
            if b not in far or d > far[b][0]:
                far[b] = (d, min(far[a][1], graph.op(e.src).spill_cost))
                changed = True
        if not changed:
            break
    return far


def _crossings(graph: Graph, ii: int, length: int, head, tail, o: str, clique: list[str], room: int,
               group_of: dict[str, tuple]):
    """At most ``room`` of the blocking ops ``clique`` fit on o's warp (with the ops
    that must share a warp with them, ``group_of``); each of the
    others is on another warp, so every path between it and o crosses warps and
    pays at least the least spill cost along it.  A reason when no choice of the
    ones that stay fits in ``length``."""
    from itertools import combinations

    into = {x: _from(graph, ii, x, True).get(o) for x in clique}  # x -> o
    out = _from(graph, ii, o, True)  # o -> y

    def least_length(off) -> int:
        best = 0
        for x in off:
            if into[x] is not None:
                best = max(best, head[x] + sum(into[x]) + tail[o])
            if x in out:
                best = max(best, head[o] + sum(out[x]) + tail[x])
            for y in off:
                if y != x and into[x] is not None and y in out:
                    best = max(best, head[x] + sum(into[x]) + sum(out[y]) + tail[y])
        return best

    def kept_with(kept) -> set[str]:
        """The clique's ops on o's warp when ``kept`` are: with their groups' and o's."""
        on = set(group_of[o])
        for v in kept:
            on |= set(group_of[v])
        return {v for v in clique if v in on}

    choices = [kept_with(c) for k in range(room + 1) for c in combinations(clique, k)]
    if len(choices) > 4096:
        return None
    worst = min((least_length([v for v in clique if v not in kept]) for kept in choices
                 if _span(graph, kept) <= room),
                default=1 << 62)
    if worst > length:
        return (f"at most {room} of the blocking ops {', '.join(sorted(clique))} fit on the warp of '{o}'; "
                f"the others' paths to it cross warps and need L >= {worst} > {length}")
    return None
