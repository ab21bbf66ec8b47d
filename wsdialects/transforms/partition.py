"""`ws-partition`: task-aware partitioning (Tawa §III-C1).

Walks backwards along use-def chains from the kernel's side effects and tags
every op with the partitions that need it:

- the producer (partition 0) owns the TMA loads of the main loop (and the
  one-shot loads before it) together with their address computation;
- the consumer (partition 1) owns everything the stores need, except the values
  that producer loads deliver (those will travel through arefs);
- an op both need (a program id, an offset used by a load and by the epilogue)
  is tagged for both and later duplicated, never moved.

Tags: `ws.partition = array<i32: ...>` on every op, `ws.role = "iter"` (address
computation / TMA load, Tawa's iteration statements) or `"tile"` (compute), and on
the main loop `ws.carried`, the partitions of each iter_arg:

    %a = tile.desc_load %ad[%m, %k] {ws.partition = array<i32: 0>, ws.role = "iter"} : ...
    %d = tile.dot %a, %bt, %acc {ws.partition = array<i32: 1>, ws.role = "tile"} : ...

A kernel without a loop holding a TMA load is left as it is, with a remark.

After `ws-schedule` (the loop carries `ws.schedule`, its ops `ws.warp`), the
consumer side follows the schedule's warp assignment instead: one consumer
partition per compute warp group (ids 1..n, `ws.partitioned = "producer,
consumer_w0, consumer_w1"`), see `analyze_scheduled`.  Without those attributes
(or with a single compute group) nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import MemoryEffectKind, get_effects

from wsdialects.diagnostics import error_at, remark
from wsdialects.tile import KERNEL_ATTR, DescLoadOp
from wsdialects.transforms.schedule_check import check_schedule

PRODUCER, CONSUMER = 0, 1
PARTITION_ATTR = "ws.partition"
ROLE_ATTR = "ws.role"
CARRIED_ATTR = "ws.carried"
PARTITIONED_ATTR = "ws.partitioned"
# Written by ws-schedule (Twill), honoured here and by ws-distribute.
SCHEDULE_ATTR = "ws.schedule"
STAGE_ATTR = "ws.stage"
ORDER_ATTR = "ws.order"
WARP_ATTR = "ws.warp"


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes]


def main_loop(kernel: func.FuncOp) -> scf.ForOp | None:
    """The top-level scf.for whose body issues TMA loads (the K loop)."""
    for op in kernel.body.block.ops:
        if isinstance(op, scf.ForOp) and any(isinstance(o, DescLoadOp) for o in op.body.block.ops):
            return op
    return None


def _loads_tiles(loop: scf.ForOp) -> bool:
    return any(isinstance(o, DescLoadOp) for o in loop.body.block.ops)


def tile_loops(kernel: func.FuncOp) -> list[scf.ForOp]:
    """The loops every partition runs a copy of, in program order (outer before inner):
    each scf.for whose body issues TMA loads, and the scf.for loops around it (a tile loop
    of a persistent kernel the user wrote). A loop that loads tiles under other control
    flow (an scf.if) is not one of them (`stranded_loops`)."""
    out: list[scf.ForOp] = []

    def visit(block: Block) -> None:
        for op in block.ops:
            if isinstance(op, scf.ForOp) and any(isinstance(o, scf.ForOp) and _loads_tiles(o) for o in op.walk()):
                out.append(op)
                visit(op.body.block)

    visit(kernel.body.block)
    return out


def stranded_loops(kernel: func.FuncOp, loops: list[scf.ForOp]) -> list[scf.ForOp]:
    """Loops that load tiles but sit in other control flow than the `tile_loops`."""
    return [o for o in kernel.body.walk() if isinstance(o, scf.ForOp) and _loads_tiles(o) and o not in loops]


def producer_loads(kernel: func.FuncOp, loop: scf.ForOp | list[scf.ForOp]) -> list[DescLoadOp]:
    """TMA loads the producer issues: those in the tile loops' bodies and those before the
    first of them at the kernel's top level (one-shot loads), in program order."""
    loops = [loop] if isinstance(loop, scf.ForOp) else loop
    before = []
    for op in kernel.body.block.ops:
        if op in loops:
            break
        if isinstance(op, DescLoadOp):
            before.append(op)
    return before + [o for lp in loops for o in lp.body.block.ops if isinstance(o, DescLoadOp)]


def _top_level_in(op: Operation, block: Block) -> Operation | None:
    cur: Operation | None = op
    while cur is not None and cur.parent_block() is not block:
        cur = cur.parent_op()
    return cur


@dataclass
class Slice:
    """The ops (and iter_args of the tile loops) one partition needs."""

    ops: set[Operation]
    carried_by: dict[scf.ForOp, set[int]]
    loop: scf.ForOp  # the main loop (the first tile loop)

    @property
    def carried(self) -> set[int]:
        """The main loop's iter_args this partition carries."""
        return self.carried_by[self.loop]

    def carried_in(self, loop: scf.ForOp) -> set[int]:
        return self.carried_by.get(loop, set())


def backward_slice(roots: list[SSAValue], loop: scf.ForOp | list[scf.ForOp], stop: set[Operation] = frozenset(),
                   owns=lambda op: True, carries_result=lambda j: True) -> Slice:
    """Everything `roots` depend on. Crossing a tile loop (`loop`, or each of a list of
    them): a loop result or iter_arg j brings in its init value and the value yielded
    for it (for a result of the main loop, the first, only if `carries_result(j)`); ops
    in `stop` are included but not walked through, ops not `owns(op)` are left out
    (their values arrive by aref)."""
    loops = [loop] if isinstance(loop, scf.ForOp) else list(loop)
    main = loops[0]
    ops: set[Operation] = set()
    carried: dict[scf.ForOp, set[int]] = {lp: set() for lp in loops}
    # Every partition runs its own copy of the loops: the bounds are always needed.
    work = [*roots, *(v for lp in loops for v in (lp.lb, lp.ub, lp.step))]
    nested_seen: set[Operation] = set()

    def need_carried(lp: scf.ForOp, j: int) -> None:
        if j not in carried[lp]:
            carried[lp].add(j)
            work.append(lp.iter_args[j])
            work.append(lp.body.block.last_op.operands[j])

    while work:
        v = work.pop()
        if isinstance(v, BlockArgument):
            if v.block.parent_op() in carried and v.index > 0:
                need_carried(v.block.parent_op(), v.index - 1)
            continue
        op = v.owner
        if op in carried:
            ops.add(op)
            if op is not main or carries_result(v.index):
                need_carried(op, v.index)
            continue
        if op in ops or not owns(op):
            continue
        ops.add(op)
        if op in stop:
            continue
        work.extend(op.operands)
        # Region ops: their bodies' uses of outer values matter too.
        for inner in op.walk():
            if inner is not op and inner not in nested_seen:
                nested_seen.add(inner)
                ops.add(inner)
                work.extend(inner.operands)
    return Slice(ops, carried, main)


def writes_memory(op: Operation) -> bool:
    """Stores, and any op whose effects are unknown (kept, to be safe)."""
    from xdsl.traits import MemoryEffectKind, get_effects

    if op.regions:
        return False  # region ops are judged by the ops inside
    effects = get_effects(op)
    return effects is None or any(e.kind == MemoryEffectKind.WRITE for e in effects)


def sinks(kernel: func.FuncOp) -> list[Operation]:
    """The side effects the kernel exists for: its stores."""
    return [op for op in kernel.body.walk()
            if op.name not in ("func.return", "scf.yield") and writes_memory(op)]


@dataclass
class Partitioning:
    """The result of the analysis for one kernel."""

    loop: scf.ForOp
    loads: list[DescLoadOp]
    producer: Slice
    consumer: Slice
    loops: list[scf.ForOp] = field(default_factory=list)  # every tile loop (`tile_loops`); loop is the first


def _enclosing(op: Operation, kernel: func.FuncOp, loops: list[scf.ForOp]) -> Operation:
    """`op`, or the op holding it at the top level of the innermost tile loop (or the kernel) around it."""
    cur = op
    while cur.parent_op() is not kernel and cur.parent_op() not in loops:
        cur = cur.parent_op()
    return cur


def analyze(kernel: func.FuncOp) -> Partitioning | None:
    loops = tile_loops(kernel)
    if not loops:
        return None
    loads = producer_loads(kernel, loops)
    prod = backward_slice([r for ld in loads for r in ld.results], loops, set())
    roots = [v for s in sinks(kernel) for v in s.operands]
    cons = backward_slice(roots, loops, set(loads))
    # The sinks themselves (and every op of the consumer's epilogue) are consumer ops.
    for s in sinks(kernel):
        cons.ops.add(s)
        cons.ops.add(_enclosing(s, kernel, loops))
    # Loads the consumer reaches are delivered by the producer, not re-issued.
    cons.ops -= set(loads)
    return Partitioning(loops[0], loads, prod, cons, loops)


def _tag(op: Operation, parts: list[int], role: str) -> None:
    if len(parts) > 1 and not op.regions and MemoryEffectKind.WRITE in {e.kind for e in get_effects(op) or ()}:
        # Duplicating it would run its side effect once per partition (an atomic counter
        # would count twice); its result would have to travel through a ring instead.
        raise error_at(op, f"ws-partition: '{op.name}' writes memory and its result is needed by more than one "
                           "partition (e.g. for the TMA loads' addresses and by the computation); warp "
                           "specialization would run it once in each. Compute the loads' addresses without it, "
                           "or keep the kernel unspecialized")
    op.attributes[PARTITION_ATTR] = DenseArrayBase.from_list(i32, parts)
    op.attributes[ROLE_ATTR] = StringAttr(role)


def partitions_of(op: Operation) -> list[int]:
    attr = op.attributes.get(PARTITION_ATTR)
    return list(attr.get_values()) if isinstance(attr, DenseArrayBase) else []


# --------------------------------------------------------------------------
# Partitioning that honours a ws-schedule warp assignment


def _int_attr(op: Operation, name: str) -> int | None:
    a = op.attributes.get(name)
    return a.value.data if isinstance(a, IntegerAttr) else None


def scheduled_warps(loop: scf.ForOp) -> dict[Operation, int] | None:
    """The compute warp group of each scheduled loop-body op (ws.warp), or None
    when the loop carries no ws-schedule result.  TMA loads (the variable-
    latency warp) are left out: they always go to the producer."""
    info = loop.attributes.get(SCHEDULE_ATTR)
    if info is None:
        return None
    vl = info.data.get("vl_warp")
    vl = vl.value.data if isinstance(vl, IntegerAttr) else None
    out = {}
    for op in loop.body.block.ops:
        w = _int_attr(op, WARP_ATTR)
        if w is not None and w != vl and not isinstance(op, DescLoadOp):
            out[op] = w
    return out or None


@dataclass
class ScheduledPartitioning:
    loop: scf.ForOp
    names: list[str]  # partition id -> role name
    slices: list[Slice]  # partition id -> the ops it runs and the iter_args it carries
    producer_ops: set[Operation]


def _merge_recurrences(loop: scf.ForOp, home: dict[Operation, int]) -> None:
    """A value carried around the loop stays on one partition: the partitions of
    a carried value's users inside the loop and of the op yielding it are
    merged (the schedule's warp groups for those ops are not honoured apart)."""
    yield_op = loop.body.block.last_op
    parent = {p: p for p in set(home.values())}

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    def homes_using(v: SSAValue, seen: set) -> set[int]:
        out = set()
        for use in v.uses:
            op = _top_level_in(use.operation, loop.body.block)
            if op is None or op is yield_op or op in seen:
                continue
            if op in home:
                out.add(home[op])
            else:  # an unscheduled op (view, scalar): look through it
                seen.add(op)
                for r in op.results:
                    out |= homes_using(r, seen)
        return out

    for j, arg in enumerate(loop.body.block.args[1:]):
        src = yield_op.operands[j]
        owner = src.owner if not isinstance(src, BlockArgument) else None
        if owner not in home:
            continue
        for h in homes_using(arg, set()):
            a, b = find(h), find(home[owner])
            if a != b:
                parent[a] = b
    for op in home:
        home[op] = find(home[op])


def analyze_scheduled(kernel: func.FuncOp, loop: scf.ForOp,
                      warps: dict[Operation, int]) -> ScheduledPartitioning | None:
    """Partition 0: the producer (TMA loads and their addresses, as without a
    schedule); partitions 1..n: one per compute warp group of the schedule,
    holding the ops ws.warp puts there.  Unscheduled ops (views, scalars, the
    prologue) are duplicated into every partition that needs them; a value
    produced by another partition arrives by aref.  A carried value lives on the
    partition yielding it; each store after the loop runs on the partition that
    yields the largest loop result it uses (a store in the loop that the schedule
    gave no compute group: `_home_loop_stores`).  None when
    fewer than two compute partitions remain (the default partitioning applies)."""
    loads = producer_loads(kernel, loop)
    prod = backward_slice([r for ld in loads for r in ld.results], loop, set())
    used = sorted(set(warps.values()))
    home: dict[Operation, int] = {op: 1 + used.index(w) for op, w in warps.items()}
    _merge_recurrences(loop, home)
    pids = sorted(set(home.values()))
    if len(pids) < 2:
        return None
    renumber = {p: i + 1 for i, p in enumerate(pids)}
    for op in home:
        home[op] = renumber[home[op]]
    n = 1 + len(pids)
    _home_loop_stores(loop, home, min(home.values()))
    _widen_where_used(loop, home)
    for ld in loads:
        home[ld] = PRODUCER
    yield_op = loop.body.block.last_op

    def yield_home(j: int) -> int | None:
        v = yield_op.operands[j]
        return home.get(v.owner) if not isinstance(v, BlockArgument) else None

    # The epilogue: each top-level op holding stores after the loop runs on the partition that
    # yields the largest loop result those stores use (no ring then carries that result out of
    # the loop); stores that use no loop result go with the first such op's partition.
    outside = [s for s in sinks(kernel) if _top_level_in(s, loop.body.block) is None]
    units: dict[Operation, list[Operation]] = {}
    for s in outside:
        units.setdefault(_top_level_in(s, kernel.body.block) or s, []).append(s)
    epilogue: dict[Operation, int] = {}
    for top, stores in units.items():
        probe = backward_slice([v for s in stores for v in s.operands], loop, set(home))
        best, where = -1, None
        for j in sorted(probe.carried):
            h = yield_home(j)
            size = _elements(loop.results[j])
            if h is not None and h != PRODUCER and size > best:
                best, where = size, h
        epilogue[top] = where
    default = next((h for h in epilogue.values() if h is not None), 1)
    epilogue = {top: default if h is None else h for top, h in epilogue.items()}

    slices = [prod]
    for pid in range(1, n):
        roots = [v for op, h in home.items() if h == pid for v in op.operands]
        mine = [s for top, h in epilogue.items() if h == pid for s in units[top]]
        roots += [v for s in mine for v in s.operands]
        sl = _scheduled_slice(roots, loop, home, pid, yield_home)
        sl.ops |= {op for op, h in home.items() if h == pid}
        for top, h in epilogue.items():
            if h == pid:
                sl.ops |= {top, *units[top]}
        slices.append(sl)
    names = ["producer"] + [f"consumer_w{w}" for w in (used[p - 1] for p in pids)]
    return ScheduledPartitioning(loop, names, slices, prod.ops)


def _home_loop_stores(loop: scf.ForOp, home: dict[Operation, int], first: int) -> None:
    """Give every store in the loop body that the schedule left without a compute group (a TMA
    store it timed on the variable-latency group, like the loads) the partition that computes
    the tile it stores: the store then needs no ring of its own (its tile is staged in
    shared memory where it is computed), and its addresses are recomputed there. The tile's
    partition is found through unscheduled ops (views, conversions); where several compute
    it, the one computing the most elements wins; `first` where none does.

        %dq = tile.dot ... {ws.warp = 1}                  -> partition of ws.warp 1
        tile.desc_store add %d[...], %dq {ws.warp = 2}   -> the same partition (ws.warp 2: the TMA group)
    """
    body = loop.body.block

    def sources(v: SSAValue, seen: set[Operation]) -> dict[int, int]:
        if isinstance(v, BlockArgument) or v.owner.parent_block() is not body or v.owner in seen:
            return {}
        op = v.owner
        if op in home:
            return {home[op]: _elements(v)}
        seen.add(op)
        out: dict[int, int] = {}
        for w in op.operands:
            for h, size in sources(w, seen).items():
                out[h] = max(out.get(h, 0), size)
        return out

    for op in body.ops:
        if op in home or isinstance(op, DescLoadOp) or op is body.last_op or not writes_memory(op):
            continue
        found: dict[int, int] = {}
        for v in op.operands:
            for h, size in sources(v, set()).items():
                found[h] = max(found.get(h, 0), size)
        home[op] = max(sorted(found), key=found.__getitem__) if found else first


WIDENING = ("arith.extf", "arith.extsi", "arith.extui")


def _widen_where_used(loop: scf.ForOp, home: dict[Operation, int]) -> None:
    """A widening conversion whose users all run on one other partition runs there: the
    narrower tile crosses partitions (half the ring's bytes for bf16 -> f32), and the
    conversion, an elementwise instruction per element, is repeated where it is needed.

        %p16 = arith.truncf %p {ws.warp = 0}               %p16 crosses, not %p32:
        %p32 = arith.extf %p16 {ws.warp = 0}       ->      %p32 = arith.extf %p16 in ws.warp 1's partition
        %ds = arith.mulf %p32, %dp {ws.warp = 1}
    """
    body = loop.body.block
    for op in body.ops:
        if op.name not in WIDENING or op not in home:
            continue
        users = {_top_level_in(u.operation, body) for r in op.results for u in r.uses}
        homes = {home.get(u) for u in users}
        if len(homes) == 1 and None not in users and (h := next(iter(homes))) not in (None, home[op]):
            home[op] = h


def _elements(v: SSAValue) -> int:
    size = 1
    for d in getattr(v.type, "get_shape", lambda: ())():
        size *= d
    return size


def _scheduled_slice(roots, loop: scf.ForOp, home: dict[Operation, int], pid: int, yield_home) -> Slice:
    """What partition `pid` needs for `roots`: walks through unscheduled ops and
    its own; stops at another partition's op (that value arrives by aref) and at
    a loop result whose yield another partition computes (sent after the loop)."""
    return backward_slice(roots, loop, owns=lambda op: home.get(op, pid) == pid,
                          carries_result=lambda j: yield_home(j) in (None, pid))


@dataclass(frozen=True)
class PartitionPass(ModulePass):
    """Tag every op of a tile kernel with the partitions (producer, consumer) that need it."""

    name = "ws-partition"

    def apply(self, ctx, op: ModuleOp) -> None:
        check_schedule(op)  # ws.* attributes are input: validated before they are honoured
        for kernel in kernels(op):
            p = analyze(kernel)
            if p is None:
                remark(kernel, f"ws-partition: @{kernel.sym_name.data} has no loop with a TMA load "
                               "(tile.desc_load); it is left as it is, not warp-specialized")
                continue
            for lp in stranded_loops(kernel, p.loops):
                remark(lp, "ws-partition: this loop's TMA loads are not warp-specialized (the loop runs under "
                           "control flow other than scf.for): the consumer issues them itself")
            warps = scheduled_warps(p.loop)
            if warps is not None and len(p.loops) > 1:
                remark(p.loop, "ws-partition: the ws-schedule warp assignment is not honoured in a kernel with "
                               "several tile loops; one producer and one consumer partition run them all")
                warps = None
            sp = analyze_scheduled(kernel, p.loop, warps) if warps is not None else None
            if sp is not None:
                self._tag_scheduled(kernel, sp)
                continue
            self._tag_kernel(kernel, p)

    @staticmethod
    def _tag_scheduled(kernel: func.FuncOp, p: ScheduledPartitioning) -> None:
        for inner in kernel.body.walk():
            if inner.name in ("scf.yield", "func.return"):
                continue
            parts = [pid for pid, sl in enumerate(p.slices) if inner in sl.ops]
            if inner is p.loop:
                parts = list(range(len(p.slices)))
            if not parts:
                parts = [1]  # unused pure code stays with the (first) compute partition
            role = "iter" if inner in p.producer_ops and inner is not p.loop else "tile"
            _tag(inner, parts, role)
        p.loop.attributes[CARRIED_ATTR] = ArrayAttr(
            [DenseArrayBase.from_list(i32, [pid for pid, sl in enumerate(p.slices) if j in sl.carried])
             for j in range(len(p.loop.iter_args))])
        kernel.attributes[PARTITIONED_ATTR] = StringAttr(", ".join(p.names))

    @staticmethod
    def _tag_kernel(kernel: func.FuncOp, p: Partitioning) -> None:
        for inner in kernel.body.walk():
            if inner.name in ("scf.yield", "func.return"):
                continue
            parts = [x for x, s in ((PRODUCER, p.producer), (CONSUMER, p.consumer)) if inner in s.ops]
            if inner in p.loops:
                parts = [PRODUCER, CONSUMER]
            if not parts:
                parts = [CONSUMER]  # unused pure code stays with the compute side
            role = "iter" if inner in p.producer.ops and inner not in p.loops else "tile"
            _tag(inner, parts, role)
        for loop in p.loops:
            carried = []
            for j in range(len(loop.iter_args)):
                parts = [x for x, s in ((PRODUCER, p.producer), (CONSUMER, p.consumer)) if j in s.carried_in(loop)]
                carried.append(DenseArrayBase.from_list(i32, parts))
            loop.attributes[CARRIED_ATTR] = ArrayAttr(carried)
        kernel.attributes[PARTITIONED_ATTR] = StringAttr("producer, consumer")
