"""The pipeline stages of a partition's loop, for `ws-pipeline-coarse`: which ops of an
iteration run one iteration late, from Tawa's cues or from `ws.stage` (written by
`ws-schedule` or the user), and -- for the copies of one scheduled loop that
`ws-distribute` gave the partitions -- stages that agree across partitions.

A stage is relative to a step of the steady state: op `o` of iteration `i` runs in step
`i + stage(o)`. The partitions' copies of a loop stay deadlock-free when every copy runs
its ops in step order (each copy is pipelined by its stages, or all of its ops share one
stage) and each aref ring has a slot for every position that is alive at once: from the
step its put runs to the step its consumer releases it (plus the iterations
`ws-pipeline-mma` keeps dots in flight). `plan_group` finds such stages, or says why the
loop copies are left as they are:

    producer   %x = tile.desc_load {ws.stage = 0}  ... aref.put %rx  (step i)
    consumer   %u = tile.dot %x, ... {ws.stage = 1} ... aref.consumed %rx[%k - 2] (step i + 1 + 2)
    => %rx needs 4 slots (positions i .. i + 3 are alive at once), not the 3 of depth=3

An op without `ws.stage` runs as late as its users allow and never before its operands,
including the ops of other partitions whose values it gets through an aref ring.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue

from wsdialects.aref import ConsumedOp, CreateOp, GetOp, PutOp, RingType
from wsdialects.mma import AsyncDotOp, WaitOp
from wsdialects.tile import BroadcastOp, DotOp, ExpandDimsOp, TransOp
from wsdialects.transforms.borrowed_tiles import borrowed, users_in

STAGE_ATTR, ORDER_ATTR = "ws.stage", "ws.order"
# Ops whose result aliases an aref slot they read: a slot is released only after
# every read of it and of these views.
SLOT_VIEWS = (TransOp, ExpandDimsOp, BroadcastOp)

# Ops without side effects: free to move between stages and to reorder.
_PURE_TILE = {"tile.splat", "tile.make_range", "tile.expand_dims", "tile.broadcast", "tile.trans",
              "tile.reduce", "tile.addptr", "tile.program_id", "tile.num_programs", "warp_group.share"}


def pure(op: Operation) -> bool:
    return op.dialect_name() in ("arith", "math") or op.name in _PURE_TILE


def int_attr(op: Operation, name: str) -> int | None:
    a = op.attributes.get(name)
    return a.value.data if isinstance(a, IntegerAttr) else None


class NotPipelined(Exception):
    """The loop cannot be pipelined; the message says why (reported as a remark at `loop`).
    `stages`: the stages a copy of the loop would need, where there are more than two."""

    def __init__(self, message: str, loop: Operation | None = None, stages: list[int] | None = None):
        super().__init__(message)
        self.loop, self.stages = loop, stages


class LoopBody:
    """Intra-iteration dependences between the top-level ops of a loop body."""

    def __init__(self, loop: scf.ForOp):
        self.loop = loop
        self.block = loop.body.block
        self.ops = [o for o in self.block.ops if o is not self.block.last_op]
        self.index = {o: i for i, o in enumerate(self.ops)}
        self.deps: dict[Operation, set[Operation]] = {o: set() for o in self.ops}
        self.users: dict[Operation, set[Operation]] = {o: set() for o in self.ops}
        for o in self.ops:
            for inner in o.walk():
                for v in inner.operands:
                    d = self.top(v)
                    if d is not None and d is not o:
                        self.deps[o].add(d)
                        self.users[d].add(o)

    def top(self, v: SSAValue) -> Operation | None:
        """The top-level op of the body that defines `v` (None: defined elsewhere)."""
        if not isinstance(v, OpResult):
            return None
        op: Operation | None = v.op
        while op is not None and op.parent_block() is not self.block:
            op = op.parent_op()
        return op if op in self.index else None

    def reads(self, op: Operation) -> set[SSAValue]:
        return {v for inner in op.walk() for v in inner.operands}

    def closure(self, seeds, edges) -> set[Operation]:
        out, work = set(), list(seeds)
        while work:
            o = work.pop()
            if o not in out:
                out.add(o)
                work.extend(edges[o])
        return out

    def forward(self, op: Operation) -> set[Operation]:
        return self.closure([op], self.users)

    def backward(self, op: Operation) -> set[Operation]:
        return self.closure([op], self.deps)


def released_ring(op: Operation) -> SSAValue | None:
    """The ring `op` releases: an `aref.consumed`, or the `scf.if %k >= P { aref.consumed
    %r[%k - P] }` by which ws-pipeline-mma releases a slot P iterations late."""
    if isinstance(op, ConsumedOp):
        return op.ring
    if isinstance(op, scf.IfOp) and not op.output and len(op.true_region.blocks) == 1:
        inner = [o for o in op.true_region.block.ops if not isinstance(o, scf.YieldOp)]
        if len(inner) == 1 and isinstance(inner[0], ConsumedOp) and not op.false_region.blocks:
            return inner[0].ring
    return None


def release_lag(op: Operation) -> int:
    """How many iterations after its get `op` (see `released_ring`) releases a slot."""
    if isinstance(op, ConsumedOp):
        return 0
    pos = next(o for o in op.true_region.block.ops if isinstance(o, ConsumedOp)).position
    if isinstance(pos, OpResult) and isinstance(pos.op, arith.SubiOp):
        c = pos.op.rhs.owner
        if isinstance(c, arith.ConstantOp) and isinstance(c.value, IntegerAttr):
            return c.value.value.data
    raise NotPipelined("a slot is released inside control flow that ws-pipeline-mma did not build")


# ----------------------------------------------------------------------------- stages


def dots(body: LoopBody) -> list[Operation]:
    return [o for o in body.ops if isinstance(o, DotOp | AsyncDotOp)]


def wait_of(body: LoopBody, dot: Operation) -> Operation:
    """The op that makes `dot`'s result usable: itself, or its mma.wait."""
    if isinstance(dot, DotOp):
        return dot
    waits = [u for u in body.users[dot] if isinstance(u, WaitOp)]
    if len(waits) != 1 or len(waits[0].operands) != 1 or len(body.users[dot]) != 1:
        raise NotPipelined("an async dot is not retired by a wait of its own in the same iteration "
                           "(already pipelined by ws-pipeline-mma)")
    return waits[0]


def tawa_stages(body: LoopBody) -> dict[Operation, int] | None:
    """Algorithm 1's stages: T and C (the work reading T) in stage 0, U and what
    follows it in stage 1; other ops are placed later. None: no T -> C -> U chain."""
    found = dots(body)
    if len(found) < 2:
        return None
    for t in found:
        if any(d in found for d in body.backward(t) - {t}):
            continue  # T depends on no other dot of the iteration
        t_done = wait_of(body, t)
        c_region = body.forward(t_done) - {t_done}
        for u in found:
            if u is t or u in body.backward(t):
                continue
            feeders = {body.top(v) for v in (u.operands[0], u.operands[1])} - {None}
            chain = set().union(*(body.backward(f) for f in feeders)) & c_region if feeders else set()
            if not any(o.dialect_name() in ("arith", "math") or o.name == "tile.reduce" for o in chain):
                continue  # U does not read work done on T's result: no C stage
            late = body.forward(u)
            stage = {o: 0 for o in c_region | {t, t_done}}
            stage.update({o: 1 for o in late})
            _rescale_with(body, u, stage)
            return stage
    return None


def _rescale_with(body: LoopBody, u: Operation, stage: dict[Operation, int]) -> None:
    """Move the pure ops that only compute U's accumulator operand (attention's
    `acc * alpha`) into U's stage. Pipelined, they then run just before U_{j-1} issues,
    behind T_j's issue, instead of at the end of C_j: there they would need U_{j-1}'s
    result while C_j still runs, and ptxas hoists the wait for U_{j-1} (with the
    rescale) above C_j's softmax (FlashAttention-3 rescales O at the same place).
    The operands they read from stage 0 (`alpha`, a row vector) travel to the next
    iteration instead of the rescaled tile."""
    if len(u.operands) < 3:
        return
    work = [body.top(u.operands[2])]
    while work:
        o = work.pop()
        if o is None or stage.get(o) != 0 or not pure(o) or o.regions:
            continue
        if all(stage.get(user) == 1 for user in _user_tops(body, o)):
            stage[o] = 1
            work.extend(body.top(v) for v in o.operands)


def _user_tops(body: LoopBody, op: Operation) -> list[Operation | None]:
    """The top-level ops of the body that use `op`'s results (None: the loop's yield)."""
    out: list[Operation | None] = []
    for r in op.results:
        for use in r.uses:
            user: Operation | None = use.operation
            while user is not None and user.parent_block() is not body.block:
                user = user.parent_op()
            out.append(None if user is body.block.last_op else user)
    return out


def given_stages(body: LoopBody) -> dict[Operation, int]:
    """`ws.stage` of the body's ops, as written."""
    return {o: s for o in body.ops if (s := int_attr(o, STAGE_ATTR)) is not None}


def complete_stages(body: LoopBody, given: dict[Operation, int],
                    floors: dict[SSAValue, int] | None = None) -> dict[Operation, int]:
    """Stages for every op: unplaced ops as late as their users allow (views and
    aref gets travel with their readers), never before their operands, and a get of
    ring r never before `floors[r]` (the stage its put runs in, in another partition);
    a wait with its dot; a release with the last reader of its slot (and the ops that
    only compute its position with it)."""
    floors = floors or {}
    stage: dict[Operation, int | None] = dict(given)
    low = min([*given.values(), *(floors.get(g.ring, 0) for g in body.ops if isinstance(g, GetOp))], default=0)
    for o in reversed(body.ops):
        if o not in given:
            below = [stage[u] for u in body.users[o] if stage.get(u) is not None]
            stage[o] = min(below) if below else None
    for o in body.ops:
        above = [stage[d] for d in body.deps[o] if stage[d] is not None]
        if isinstance(o, GetOp) and o.ring in floors:
            above.append(floors[o.ring])
        if o not in given:
            stage[o] = max([s for s in [stage[o], *above] if s is not None], default=low)
    for o in reversed(body.ops):  # a slot (and its views) is borrowed in the stage that first reads it
        if o not in given and isinstance(o, (GetOp, *SLOT_VIEWS)) and body.users[o]:
            stage[o] = max(stage[o], min(stage[u] for u in body.users[o]))
    for o in body.ops:
        if isinstance(o, WaitOp):
            waited = [body.top(v) for v in o.operands]
            stage[o] = max(stage[d] for d in waited if d is not None) if any(waited) else stage[o]
    gets = {g.ring: g for g in body.ops if isinstance(g, GetOp)}
    for o in body.ops:
        ring = released_ring(o)
        if ring is None:
            continue
        g = gets.get(ring)
        if g is None:
            raise NotPipelined("an aref.consumed releases a slot the iteration did not get")
        readers = users_in(body.block, borrowed(body.block, g, SLOT_VIEWS))
        stage[o] = max([stage[g], *(stage[r] for r in readers if r in stage)])
        _with_release(body, o, stage, given)
    return stage  # type: ignore[return-value]


def _with_release(body: LoopBody, release: Operation, stage: dict, given: dict) -> None:
    """The pure ops that only compute a release's position (`%k - P`, `%k >= P`) go to its stage."""
    work = list(body.deps[release])
    while work:
        d = work.pop()
        if d in given or not pure(d) or stage[d] >= stage[release]:
            continue
        if all(stage[u] == stage[release] for u in body.users[d]):
            stage[d] = stage[release]
            work += body.deps[d]


def check_stages(body: LoopBody, stage: dict[Operation, int]) -> None:
    if set(stage.values()) - {0, 1}:
        used = sorted(set(stage.values()))
        raise NotPipelined(f"stages {used}: only two-stage pipelines are supported", stages=used)
    for o in body.ops:
        for d in body.deps[o]:
            if stage[d] > stage[o]:
                raise NotPipelined(f"'{o.name}' in stage {stage[o]} reads '{d.name}' of stage {stage[d]} "
                                   "in the same iteration")
    for o in body.ops:
        if isinstance(o, AsyncDotOp):
            w = wait_of(body, o)
            if stage[w] != stage[o]:
                raise NotPipelined("an async dot and its wait are in different stages")
    for g in (o for o in body.ops if isinstance(o, GetOp)):
        releases = [c for c in body.ops if released_ring(c) is g.ring]
        if any(stage[c] != stage[g] for c in releases):
            depth = g.ring.type.depth.data if isinstance(g.ring.type, RingType) else 1
            if depth < 2:
                raise NotPipelined(f"aref ring of depth {depth} would hold two slots across iterations")
        tiles = borrowed(body.block, g, SLOT_VIEWS)
        late = [r for r in users_in(body.block, tiles) if stage[r] == 1
                and any(stage.get(body.top(v)) == 0 for v in body.reads(r) if v in tiles)]
        if late:
            ring = g.ring.name_hint or "ring"
            raise NotPipelined(f"the tile of %{ring} is read in stage 0 and again in stage 1 (by '{late[0].name}'): "
                               "the pipelined loop would carry it to the next iteration as a loop value, and a "
                               "slot's tiles are read (wgmma operands) only in the iteration that gets them")


# ----------------------------------------------------------------------------- the copies of one loop


@dataclass
class GroupPlan:
    """Stages (shifted so each loop's earliest is 0) of the loops to pipeline, and the
    depth each ring needs for the slots alive at once."""

    stages: dict[scf.ForOp, dict[Operation, int]]
    depths: dict[SSAValue, int]


def plan_group(loops: list[scf.ForOp]) -> GroupPlan:
    """Stages that agree across the partitions' copies of one scheduled loop (see the
    module doc); NotPipelined (naming the loop at fault) when some copy cannot follow
    them: then no copy is pipelined, since one copy run out of step with the others
    can wait for a value the others produce only after waiting for it."""
    bodies = {loop: LoopBody(loop) for loop in loops}
    given = {loop: given_stages(b) for loop, b in bodies.items()}
    floors: dict[SSAValue, int] = {}
    for _ in range(len(loops) + 2):  # a value crosses each partition at most once per iteration
        absolute = {loop: _complete(loop, b, given[loop], floors) for loop, b in bodies.items()}
        new: dict[SSAValue, int] = {}
        for loop, b in bodies.items():
            for p in (o for o in b.ops if isinstance(o, PutOp)):
                new[p.ring] = max(new.get(p.ring, 0), absolute[loop][p])
        if new == floors:
            break
        floors = new
    plan = GroupPlan({}, {})
    for loop, b in bodies.items():
        low = min(absolute[loop].values(), default=0)
        local = {o: s - low for o, s in absolute[loop].items()}
        try:
            check_stages(b, local)
        except NotPipelined as e:
            raise NotPipelined(str(e), loop, e.stages) from None
        if 1 in local.values():
            plan.stages[loop] = local
    if not plan.stages:
        return plan
    puts = {p.ring: p for b in bodies.values() for p in b.ops if isinstance(p, PutOp)}
    for loop, b in bodies.items():  # ring positions alive at once: put step .. release step (+ lag)
        for o in b.ops:
            ring = released_ring(o)
            if ring is not None and ring in floors and isinstance(ring.type, RingType):
                lag = release_lag(o)
                need = absolute[loop][o] + lag - floors[ring]
                if lag or not _released_first(b, o, bodies, puts[ring], set(plan.stages)):
                    need += 1  # the release and the refill fall in one step: one slot more
                if need > ring.type.depth.data:
                    plan.depths[ring] = max(plan.depths.get(ring, 0), need)
    return plan


def _released_first(body: LoopBody, release: Operation, bodies: dict, put: PutOp, pipelined: set) -> bool:
    """Within one step, the slot is released before the put that refills it: the readers of
    the slot come before the op whose value is put in `ws.order`, and both copies run their
    ops in that order (a pipelined copy by construction, a flat copy when its program order
    agrees)."""
    g = next(x for x in body.ops if isinstance(x, GetOp) and x.ring is released_ring(release))
    readers = [int_attr(r, ORDER_ATTR) for r in users_in(body.block, borrowed(body.block, g, SLOT_VIEWS))]
    src = next(b for b in bodies.values() if put in b.index)
    made = src.top(put.values[0]) if put.values else None
    rank = int_attr(made, ORDER_ATTR) if made is not None else None
    if not readers or None in readers or rank is None or max(readers) >= rank:
        return False
    return all(x.loop in pipelined or _in_rank_order(x) for x in (body, src))


def _in_rank_order(body: LoopBody) -> bool:
    ranks = [r for o in body.ops if (r := int_attr(o, ORDER_ATTR)) is not None]
    return ranks == sorted(ranks)


def _complete(loop: scf.ForOp, body: LoopBody, given, floors) -> dict[Operation, int]:
    try:
        return complete_stages(body, given, floors)
    except NotPipelined as e:
        raise NotPipelined(str(e), loop, e.stages) from None


def deepen(ring: SSAValue, depth: int) -> None:
    """Give the ring made by `aref.create` `depth` slots."""
    old = ring.owner
    assert isinstance(old, CreateOp) and isinstance(ring.type, RingType)
    new = CreateOp(RingType(list(ring.type.payload), depth),
                   None if old.consumers is None else old.num_consumers)
    new.ring.name_hint = ring.name_hint
    new.attributes.update(old.attributes)
    block: Block = old.parent_block()
    block.insert_op_before(new, old)
    ring.replace_all_uses_with(new.ring)
    old.detach()
    old.erase()
