"""Among the joint schedules of the optimal (II, L), one that carries the fewest bytes
across stage boundaries.

The joint model's liveness charges a value for its lifetime in cycles, wherever the stage
boundaries fall, so at one (II, L) it sees no difference between schedules that the code
generator treats very differently:

- registers: a value produced in stage s and used in stage t (of an iteration k later) is
  carried through ``t + k - s`` iterations of the pipelined loop, held in registers from
  its definition to its use, where an elementwise chain within one stage is fused into
  its consumer and holds nothing (what ws-register-budget counts).  Flash attention's P
  tile carried as f32 (``%p`` in stage 0, ``%p16 = arith.truncf %p`` in stage 1: 64
  registers per thread) instead of f16 (the truncation in stage 0: 32) put the consumer
  above its ``setmaxnreg`` budget.  A carried wgmma result counts twice: it is still in
  flight when the next iteration computes a tile of its own size from it (split
  attention's PV warp carrying ``%acc_new`` instead of ``%acc_s``: 284 registers instead
  of 156);
- shared memory: a value handed to another warp (or from the TMA warp) through an aref
  ring needs ``crossing + 1`` slots, one fewer where the slot is released before it is
  refilled (the reader's residue below the producer's, both warps' copies pipelined, i.e.
  their ops in two stages): `stages.plan_group`'s rule.  Split flash attention with its
  softmax warp in one stage doubles the rings of P and V (64 KiB more, past the 227 KiB a
  block has).

So once Algorithm 1 has found (II, L), a second CP-SAT solve on the same model, at the
same II and length, minimises, in registers per thread of a warp group (the machine
model's ``regs``; a shared-memory tile's bytes / 512, the same measure),

    sum over tile values v of carried(v) * max(0, max over uses (stage(use) + distance - stage(v)))
  + sum over uses of a value on another warp of size(v) * slots(use)

(a streaming TMA load's stage counts as 0; a wgmma result that only feeds its own
accumulator back, attention's O rescaled in place, counts once), then, lexicographically:
the waits for asynchronous results as late after their issue as possible (the MMA runs
under the warp's own work: O's rescale next to P·V, its wait at the end of the softmax,
FA3's place and the heuristic pipeline's: with it the ping-pong attention schedules lower
to the heuristic kernel byte for byte), the row vectors carried (a few registers each: at
the first key they decided between tile placements, keeping the rescale in QK^T's stage
for the one row of alpha), and ops in stages as late as possible (M's tie-break).  II and
L are unchanged; only the tie among their schedules is chosen.  The search starts from the
schedule found (a hint), runs without CP-SAT's LP and in-processing (flash attention: 0.1 deterministic s to the optimum, where
the default search needs 5) and within :data:`TIE_WORK` deterministic seconds (the same
answer on every machine); a schedule no better than the one found is not taken.  z3 keeps
the first schedule.
"""

from __future__ import annotations

from .bounds import Deadline
from .solvers import SolverTimeout

TIE_WORK = 1.0  # deterministic seconds (CP-SAT) of the tie-breaking search
SMEM_UNIT = 4 * 128  # bytes of a shared-memory tile per register of a warp group's thread


ROW_REGS = 4  # a value of at most this many registers per thread: a row vector, not a tile


def _accumulates_into_itself(graph, name: str) -> bool:
    """Whether a dot's result only feeds values that feed it back as its accumulator
    (attention's O: ``acc_s = acc_new * alpha``, ``acc_new = dot(p, v, acc_s)``): the lowering
    rescales it in place, so the chain holds one tile's registers at every stage boundary."""
    size = graph.op(name).regs
    return all(graph.op(e.dst).regs == size and all(u.dst == name for u in graph.succs(e.dst))
               for e in graph.succs(name) if e.dst != name)


def _carry_weight(graph, name: str) -> int:
    """Registers a carried value holds: twice a wgmma result's (it stays in flight across
    the boundary while the value computed from it takes registers of its own), once where
    it accumulates into itself."""
    op = graph.op(name)
    return op.regs * (2 if graph.is_async(name) and not _accumulates_into_itself(graph, name) else 1)


def _is_row(graph, name: str) -> bool:
    return graph.op(name).regs <= ROW_REGS


def _waits(graph):
    """Blocking edges out of asynchronous ops (a wgmma result read through its wait)."""
    return [e for e in graph.edges if e.blocking and e.src != e.dst and graph.is_async(e.src)]


def _size(op) -> int:
    return op.regs if op.regs > 0 else op.smem // SMEM_UNIT


def _data_ops(graph) -> set[str]:
    """Ops whose value depends on loaded or carried data; the others are index arithmetic
    (computed from the induction variable alone), which each warp recomputes instead of
    receiving (`from_ir`)."""
    data = {op.name for op in graph.ops if op.variable_latency}
    data |= {e.dst for e in graph.edges if e.distance > 0}
    todo = list(data)
    while todo:
        for e in graph.succs(todo.pop()):
            if e.dst not in data:
                data.add(e.dst)
                todo.append(e.dst)
    return data


def _ring_edge(graph, e, data: set[str]) -> bool:
    """Whether dependence ``e`` goes through an aref ring when its ends are on different
    warps: a loaded tile from the TMA warp, or a data-carrying register value."""
    src, dst = graph.op(e.src), graph.op(e.dst)
    return not dst.variable_latency and e.src != e.dst and _size(src) > 0 and e.src in data


def _src_stage(graph, e, stage: dict[str, int]) -> int:
    return 0 if graph.is_streaming(e.src) else stage[e.src]  # a streaming op's stage is free


def carried_bytes(graph, starts: dict[str, int], ii: int, warps: dict[str, int]) -> int:
    """The cost above of a schedule (starts in cycles): tiles and row vectors together."""
    return sum(carried_parts(graph, starts, ii, warps))


def wait_slack(graph, starts: dict[str, int], ii: int) -> int:
    """Cycles from each asynchronous op's issue to the first op that waits for it, summed."""
    return sum(starts[e.dst] + e.distance * ii - starts[e.src] for e in _waits(graph))


def carried_parts(graph, starts: dict[str, int], ii: int, warps: dict[str, int]) -> tuple[int, int]:
    """(tiles, row vectors) of the cost above."""
    stage = {v: s // ii for v, s in starts.items()}
    fixed = [op.name for op in graph.ops if not op.variable_latency]
    piped = {w: len({stage[v] for v in fixed if warps[v] == w}) > 1 for w in set(warps.values())}
    total, rows, data = 0, 0, _data_ops(graph)
    for op in graph.ops:
        if op.regs > 0 and not graph.is_streaming(op.name):
            cost = _carry_weight(graph, op.name) * max(
                [0] + [stage[e.dst] + e.distance - stage[op.name] for e in graph.succs(op.name)])
            if _is_row(graph, op.name):
                rows += cost
            else:
                total += cost
    for e in graph.edges:
        if _ring_edge(graph, e, data) and warps[e.src] != warps[e.dst]:
            first = (starts[e.dst] % ii < starts[e.src] % ii and piped[warps[e.dst]]
                     and (graph.op(e.src).variable_latency or piped[warps[e.src]]))
            crossing = stage[e.dst] + e.distance - _src_stage(graph, e, stage)
            total += _size(graph.op(e.src)) * max(1, crossing + 1 - first)
    return total, rows


def _crossing(model, e):
    """A literal forced true when the ends of ``e`` are on different warps."""
    x = model.b.bool(f"cross_{e.src}_{e.dst}_{e.distance}")
    for w in range(model.layout.total):
        model.b.clause([x, model.opw[e.dst][w]], [model.opw[e.src][w]])
    return x


def _pipelined(model, top: int) -> list:
    """Per compute warp, a literal that holds only when the warp's ops use two stages (so
    that its copy of the loop is pipelined): witnessed by an op at most at some stage m and
    one above it."""
    b, g = model.b, model.graph
    fixed = [op.name for op in g.ops if not op.variable_latency]
    out = []
    for w in range(model.layout.compute):
        piped, m = b.bool(f"piped_{w}"), b.int(0, top, f"split_{w}")
        below, above = [], []
        for v in fixed:
            lo, hi = b.bool(f"below_{v}_{w}"), b.bool(f"above_{v}_{w}")
            b.clause([model.opw[v][w]], [lo])
            b.clause([model.opw[v][w]], [hi])
            b.add([(1, model.k[v]), (-1, m)], hi=0, when=[lo])
            b.add([(1, model.k[v]), (-1, m)], lo=1, when=[hi])
            below.append(lo)
            above.append(hi)
        b.clause(below, [piped])
        b.clause(above, [piped])
        out.append(piped)
    return out


def _ring_terms(model, top: int) -> list:
    """Objective terms (size, slots) of the aref rings: ``slots = max(1, crossing + 1 -
    released_first)`` for a value handed over to another warp, ``released_first`` only
    where the reader's residue is below the producer's and both copies are pipelined."""
    b, g = model.b, model.graph
    piped = _pipelined(model, top)
    data = _data_ops(g)
    terms = []
    for idx, e in enumerate(g.edges):
        src = g.op(e.src)
        if not _ring_edge(g, e, data):
            continue
        via = [] if src.variable_latency else [model.diff[idx] if idx in model.diff else _crossing(model, e)]
        slots, first = b.int(0, top + 1, f"slots_{idx}"), b.bool(f"first_{idx}")
        own = [] if g.is_streaming(e.src) else [(1, model.k[e.src])]
        b.add([(1, slots), (-1, model.k[e.dst]), (1, first)] + own, lo=1 + e.distance, when=via)
        b.add([(1, slots)], lo=1, when=via)
        residue = [(r, x) for r, x in enumerate(model.rho[e.src])] + [(-r, x) for r, x in enumerate(model.rho[e.dst])]
        b.add(residue, lo=1, when=[first])
        for w, p in enumerate(piped):
            b.clause([p], [first, model.opw[e.dst][w]])
            if not src.variable_latency:
                b.clause([p], [first, model.opw[e.src][w]])
        terms.append((_size(src), slots))
    return terms


def fewest_carried(model, starts: dict[str, int], warps: dict[str, int],
                   deadline: Deadline) -> tuple[dict[str, int], dict[str, int]]:
    """A schedule of ``model``'s II and of the length of ``starts`` (the one found) with
    the fewest carried bytes the budget finds: the one given when the backend cannot
    search (z3) or nothing cheaper turns up."""
    g, ii, b = model.graph, model.ii, model.b
    if not b.retargetable:
        return starts, warps
    def key(starts, warps):
        tiles, rows = carried_parts(g, starts, ii, warps)
        return (tiles, -wait_slack(g, starts, ii), rows,
                -sum(s // ii for v, s in starts.items() if not g.is_streaming(v)))

    cost = key(starts, warps)
    model.retarget(max(starts[op.name] + op.cycles for op in g.ops))
    b.clear_hints()
    for op in g.ops:
        v = op.name
        b.hint(model.k[v], starts[v] // ii)
        for r, lit in enumerate(model.rho[v]):
            b.hint(lit, int(r == starts[v] % ii))
        for w, lit in enumerate(model.opw[v]):
            b.hint(lit, int(w == warps[v]))
    objective, rows = [], []
    top = model.length // ii + max((e.distance for e in g.edges), default=0) + 1
    for op in g.ops:
        if op.regs <= 0 or g.is_streaming(op.name) or not g.succs(op.name):
            continue
        c = b.int(0, top, f"carried_{op.name}")
        for e in g.succs(op.name):
            b.add([(1, c), (-1, model.k[e.dst]), (1, model.k[op.name])], lo=e.distance)
        (rows if _is_row(g, op.name) else objective).append((_carry_weight(g, op.name), c))
    objective += _ring_terms(model, top)
    # Lexicographically after the tiles: the waits for asynchronous results as late after
    # their issue as possible (the MMA runs under the warp's own work: FA3's rescale of O
    # next to P·V, its wait at the end of the softmax), then the row vectors, then ops in
    # stages as late as possible (M's tie-break, by stage).
    late = [(-1, model.k[op.name]) for op in g.ops if not g.is_streaming(op.name)]
    slack = [t for e in _waits(g) for t in [(-c, x) for c, x in model.start(e.dst)] + list(model.start(e.src))]
    m_rows = len(g.ops) * top + 1  # each key's weight exceeds the range of all the keys after it
    m_slack = m_rows * (sum(c for c, _ in rows) * top + 1)
    m_tiles = m_slack * (2 * len(_waits(g)) * (model.length + top * ii) + 1)
    b.minimize([(m_tiles * c, x) for c, x in objective] + [(m_slack * c, x) for c, x in slack]
               + [(m_rows * c, x) for c, x in rows] + late)
    try:
        if not b.minimize_within(deadline.left(), TIE_WORK):
            return starts, warps
    except SolverTimeout:
        return starts, warps
    better = {op.name: model.start_value(op.name) for op in g.ops}, {op.name: model.warp_value(op.name) for op in g.ops}
    if key(*better) >= cost:
        return starts, warps
    return better


def register_peak(graph, sched) -> int:
    """The most registers per thread that one compute warp holds at one residue of the II
    in the joint model's liveness (``JointModel._memory``): a value holds its registers from
    its issue to its last user's (a user ``distance`` iterations later, that many IIs later)."""
    ii = sched.ii
    per: dict[int, list[int]] = {}
    for op in graph.ops:
        users = graph.succs(op.name)
        if op.regs <= 0 or not users or graph.is_streaming(op.name):
            continue
        s = sched.ops[op.name].start
        q, m = divmod(max([s] + [sched.ops[u.dst].start + u.distance * ii for u in users]) - s, ii)
        counts = per.setdefault(sched.ops[op.name].warp, [0] * ii)
        for r in range(ii):
            counts[r] += op.regs * (q + ((r - s) % ii < m))
    return max((max(c) for c in per.values()), default=0)


def memory_fits(graph, ii: int, starts: dict[str, int], warps: dict[str, int]) -> bool:
    """Whether a schedule keeps within each warp's register limit and the shared memory as
    the joint model counts them (``JointModel._memory``, as :func:`register_peak`): every
    value live from its issue to its last use (a use ``distance`` iterations later that
    many IIs later), a streaming op's ring of buffers always."""
    reg_limit = graph.warps.reg_limit if graph.warps else None
    smem_cap, tmem_cap = graph.smem_capacity, graph.tmem_capacity
    compute = graph.warps.count if graph.warps else 1
    vl_warp = compute if any(op.variable_latency for op in graph.ops) else None  # joint.warp_layout
    regs = [[0] * ii for _ in range(compute + 2)]  # compute warps, W_vl, W_st
    limited = set()  # the warps with a register limit: those a (non-streaming) value may be on
    smem, tmem = [0] * ii, [0] * ii
    for op in graph.ops:
        v = op.name
        if not ((reg_limit is not None and op.regs > 0) or (smem_cap is not None and op.smem > 0)
                or (tmem_cap is not None and op.tmem > 0)):
            continue
        if graph.is_streaming(v):  # a fixed ring of buffers
            for r in range(ii):
                smem[r] += graph.streaming_depth * op.smem
                if vl_warp is not None:
                    regs[vl_warp][r] += graph.streaming_depth * op.regs
            continue
        users = graph.succs(v)
        if not users:
            continue
        if op.regs > 0:
            limited |= {vl_warp} if op.variable_latency else set(range(compute))
        s = starts[v]
        q, m = divmod(max([s] + [starts[e.dst] + e.distance * ii for e in users]) - s, ii)
        for r in range(ii):
            live = q + ((r - s) % ii < m)
            smem[r] += op.smem * live
            tmem[r] += op.tmem * live
            regs[warps[v]][r] += op.regs * live
    return ((smem_cap is None or max(smem) <= smem_cap) and (tmem_cap is None or max(tmem) <= tmem_cap)
            and (reg_limit is None or all(max(regs[w]) <= reg_limit for w in limited)))
