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
  cannot issue while another (non-asynchronous) op of that warp issues (its unit
  occupancy).  Take the warp's longest-issuing op ``o`` (``c`` cycles): every other blocking op
  issues outside its ``c`` residues, and blocking ops that cannot share a
  residue (one of them executes for a cycle or more, or both need a unit at
  issue beyond its capacity) need distinct ones, so ``II >= c + their number``.

- **issue windows**: with several compute warps, the blocking ops that do not
  fit beside ``o`` go to other warps, and every path between them and ``o``
  pays a spill; the ones that stay issue within the ``II - c`` residues left,
  so a path between two of them (or them and ``o``) is rounded up to the next
  length whose residue lies in that window.  For each choice of the ones that
  stay, earliest and latest starts follow from these pairwise bounds; a
  positive cycle, an empty window, or two ops on one unit that cannot issue
  apart enough without overfilling it rule the choice out.

Flash attention with head dim 64, split over two warps: the exponentials take
32 cycles of the SFU, which leaves 2 or 3 residues for QK^T, its mask, P.V and
the rescale, all blocking; whichever stay beside them wait for the next window
and the others pay 16-32 cycles of spill, so no schedule fits in 4 stages at
II 32-35 (the solver needs 47 s to prove it at II 34, and gave up after a second).

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
    if graph.warps is not None and graph.warps.issuer and any(op.single_thread for op in graph.ops):
        return None  # the warp counting below knows no issuer warp (W_st): no proof
    groups = _groups(graph, ii, length, head, tail)
    if isinstance(groups, str):
        return groups
    blocked = {e.dst for e in graph.edges if e.blocking}
    group_of = {v: tuple(group) for group in groups for v in group}
    several = graph.warps is not None and graph.warps.count > 1
    for group in groups:
        for o in group:
            op = graph.op(o)
            if op.length <= 0 or graph.is_async(o):
                continue
            c = op.length  # the residues o issues in (its latency beyond them is the pipeline's)
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
            busy = [v for v in others if graph.op(v).length > 0 and not graph.is_async(v)]
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
    gaps = [max(graph.op(v).length, 1) if not graph.is_async(v) else 1 for v in ops]
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
    that must share a warp with them, ``group_of``); each of the others is on
    another warp, so every path between it and o (or an op that stays) crosses
    warps and pays at least the least spill cost along it.  The ones that stay
    issue outside o's ``c`` residues, so a path between two of them (or them
    and o) spans a whole number of IIs plus an offset within that window: it
    is rounded up to the next such length.  A reason when no choice of the ones
    that stay fits in ``length``."""
    from itertools import combinations

    c = graph.op(o).length
    window = ii - c  # the residues outside o's, where the blocking ops of its warp issue
    nodes = [o] + clique
    paths = {a: _from(graph, ii, a, True) for a in nodes}  # a -> (longest path, least spill on it)

    def offset_ok(a: str, b: str, t: int) -> bool:
        """Whether s_b - s_a = t is possible when a and b (blocking ops, or o) share o's warp."""
        r = t % ii
        if a == o:
            return r >= c  # b issues outside o's residues
        if b == o:
            return 1 <= r <= window
        return r < window or r > ii - window  # two issues within the window

    def gap(a: str, b: str, d: int, on: set[str]) -> int:
        """A lower bound on s_b - s_a given a path of length d between them."""
        if (a in on) != (b in on):
            return d + paths[a][b][1]  # the path crosses warps
        if a not in on:
            return d
        t = d
        while not offset_ok(a, b, t) and t < d + ii:
            t += 1
        return t

    def fits(kept: set[str]) -> bool:
        """Whether a schedule of length <= ``length`` may exist with ``kept`` (and o)
        on o's warp and the rest of the clique elsewhere: earliest starts from
        longest paths over the pairwise bounds (a positive cycle among them: no
        schedule), latest ones back from the end; two ops whose windows then
        leave no pair of starts apart enough and clear of each other's units
        rule it out too."""
        on = {o} | kept
        pairs = [(a, b, gap(a, b, d, on)) for a in nodes for b, (d, _) in paths[a].items() if b != a and b in on | set(nodes)]
        early = {a: head[a] for a in nodes}
        late = {a: length - tail[a] for a in nodes}
        for bound, step in ((early, lambda a, b, w: (b, early[a] + w, early[b].__lt__)),
                            (late, lambda a, b, w: (a, late[b] - w, late[a].__gt__))):
            for _ in range(len(nodes) + 1):
                changed = False
                for a, b, w in pairs:
                    at, value, better = step(a, b, w)
                    if better(value):
                        bound[at], changed = value, True
                if not changed:
                    break
            else:
                return False
        if any(early[a] > late[a] for a in nodes):
            return False
        gaps = {(a, b): w for a, b, w in pairs}
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                if (late[a] - early[a] + 1) * (late[b] - early[b] + 1) > 4096 or not _share_unit(graph, a, b):
                    continue
                if not any(sb - sa >= gaps.get((a, b), -(1 << 62)) and sa - sb >= gaps.get((b, a), -(1 << 62))
                           and not _clash(graph, ii, a, sa, b, sb)
                           for sa in range(early[a], late[a] + 1) for sb in range(early[b], late[b] + 1)):
                    return False
        return True

    def kept_with(kept) -> set[str]:
        """The clique's ops on o's warp when ``kept`` are: with their groups' and o's."""
        on = set(group_of[o])
        for v in kept:
            on |= set(group_of[v])
        return {v for v in clique if v in on}

    choices = [kept_with(k) for n in range(room + 1) for k in combinations(clique, n)]
    if len(choices) > 4096:
        return None
    if any(fits(kept) for kept in choices if _span(graph, kept) <= room):
        return None
    return (f"at most {room} of the blocking ops {', '.join(sorted(clique))} fit on the warp of '{o}'; "
            f"paths between them and it cross warps or wait for the next issue window, and no choice "
            f"fits in L = {length}")


def _share_unit(graph: Graph, a: str, b: str) -> bool:
    return bool(set(graph.op(a).uses) & set(graph.op(b).uses))


def _clash(graph: Graph, ii: int, a: str, sa: int, b: str, sb: int) -> bool:
    """Whether ops a and b, issued at sa and sb (every member of a ping-pong team
    at its offset), overfill a unit at some residue between them alone."""
    for unit, cap in graph.units.items():
        use: dict[int, int] = {}
        for v, sv in ((a, sa), (b, sb)):
            for shift in graph.member_offsets(v, ii):
                for c, amount in enumerate(graph.op(v).uses.get(unit, ())):
                    if amount:
                        r = (sv + c + shift) % ii
                        use[r] = use.get(r, 0) + amount
        if any(x > cap for x in use.values()):
            return True
    return False
