"""`ws-distribute{depth=D}`: loop distribution into warp-group partitions (Tawa §III-C2).

Turns a kernel tagged by `ws-partition` into one `warp_group.region` with a
producer partition (one warp group) and a consumer partition (the source's
`tile.num_warps`). Each partition gets its own copy of the main loop over the
same iteration space holding only its own ops and iter_args. Every tile that
crosses partitions travels through an aref ring of depth D, slot = k mod D;
loads whose tiles feed the same op share one ring (a tuple payload); the
consumer releases a slot right after the last use of its tiles:

    %ab = aref.create : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
    warp_group.region {
      warp_group.partition 0 producer warps 4 regs 40 {
        scf.for %k = ... {
          %a = tile.desc_load ...   %b = tile.desc_load ...
          aref.put %ab[%k], %a, %b : ...
        }
      }
      warp_group.partition 1 consumer warps 8 regs 232 {
        %r = scf.for %k = ... iter_args(%acc = ...) {
          %a, %b = aref.get %ab[%k] : ...
          %bt = tile.trans %b ...   %d = tile.dot %a, %bt, %acc ...
          aref.consumed %ab[%k] : ...
          scf.yield %d
        }
        ... epilogue ...
      }
    }

A kernel partitioned after `ws-schedule` (more than one consumer partition)
gets one partition of one warp group per scheduled group, and every value that
crosses partitions -- TMA tiles and computed tiles alike, and loop results the
epilogue partition needs -- travels through its own ring (`_ScheduledDistribution`);
a tile that several partitions use travels through one ring that they all get and
release (a TMA tile is loaded once, into that ring's slot).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass

from wsdialects.aref import ConsumedOp, CreateOp, GetOp, PutOp, RingType
from wsdialects.diagnostics import WsError, error_at
from wsdialects.nvgpu.types import entry_regs, register_pool
from wsdialects.tile import NUM_WARPS_ATTR, BroadcastOp, DescLoadOp, ExpandDimsOp, TransOp
from wsdialects.transforms.borrowed_tiles import VIEW_OPS, aliases, release_after_last_use
from wsdialects.transforms.partition import (
    CARRIED_ATTR,
    CONSUMER,
    PARTITION_ATTR,
    PARTITIONED_ATTR,
    PRODUCER,
    ROLE_ATTR,
    SCHEDULE_ATTR,
    kernels,
    partitions_of,
    tile_loops,
)
from wsdialects.transforms.ring_positions import RingPositions, const
from wsdialects.transforms.schedule_check import check_schedule
from wsdialects.warp_group import PartitionOp, RegionOp

PRODUCER_WARPS = 4
PRODUCER_REGS = 40
MAX_REGS = 256

def consumer_regs(consumer_warps: int, ctas_per_sm: int = 1) -> int:
    """The largest per-thread budget (multiple of 8, at most 256) that fits the registers the
    CTA holds from launch (`register_pool`: 64512 for three warp groups) next to a producer
    warp group at PRODUCER_REGS. With several CTAs per SM (ws-occupancy), also no more
    than a thread gets at launch: under `.minnctapersm C` ptxas compiles every region of the
    kernel, the ones after a setmaxnreg.inc too, within 65536 / (C x threads) registers (80
    for three warp groups at C = 2), so a larger setmaxnreg would buy nothing."""
    free = register_pool(32 * (PRODUCER_WARPS + consumer_warps), ctas_per_sm) - PRODUCER_WARPS * 32 * PRODUCER_REGS
    regs = min(MAX_REGS, free // (consumer_warps * 32) // 8 * 8)
    if ctas_per_sm > 1:
        regs = min(regs, entry_regs(32 * (PRODUCER_WARPS + consumer_warps), ctas_per_sm))
    return regs


@dataclass
class Channel:
    """One aref ring's use in one place: the producer loads of one tile loop (or the
    one-shot loads before the loops) whose tiles travel together."""

    loads: list[DescLoadOp]
    in_loop: bool
    ring: SSAValue | None = None
    users: set[Operation] = field(default_factory=set)
    loop: scf.ForOp | None = None  # the tile loop whose body holds the loads (None: one-shot)
    owner: "Channel | None" = None  # the channel whose ring this one uses (`share_rings`)


def _first_users(value: SSAValue) -> set[Operation]:
    """The ops that compute with `value`, looking through view ops; a value an
    `scf.yield` passes on is used by the yield's region op."""
    out: set[Operation] = set()
    for use in value.uses:
        op = use.operation
        if isinstance(op, VIEW_OPS):
            out |= _first_users(op.results[0])
        elif isinstance(op, scf.YieldOp) and op.parent_op() is not None:
            out.add(op.parent_op())
        else:
            out.add(op)
    return out


def channels(loads: list[DescLoadOp], loop: scf.ForOp | list[scf.ForOp]) -> list[Channel]:
    """Group loads by a shared consuming op (union of overlapping user sets),
    keeping the loads of each tile loop and the one-shot loads apart; in program order."""
    loops = [loop] if isinstance(loop, scf.ForOp) else loop
    groups: list[Channel] = []
    for ld in loads:
        users = {u for u in _first_users(ld.results[0]) if CONSUMER in partitions_of(u)}
        if not users:
            continue
        home = ld.parent_op() if ld.parent_op() in loops else None
        in_loop = home is not None
        merged = [g for g in groups if g.loop is home and g.users & users]
        ch = Channel([ld], in_loop, users=set(users), loop=home)
        for g in merged:
            ch.loads = g.loads + ch.loads
            ch.users |= g.users
            groups.remove(g)
        groups.append(ch)
    order = {ld: i for i, ld in enumerate(loads)}
    for g in groups:
        g.loads.sort(key=order.__getitem__)
    groups.sort(key=lambda g: order[g.loads[0]])
    return groups


def share_rings(chans: list[Channel]) -> list[Channel]:
    """The channels that open a ring of their own, in program order. A loop's channel
    takes over the ring of an earlier loop's channel with the same payload types (the
    same tiles: causal attention's two K/V loops, a two-pass kernel's two reads of X)
    when neither loop holds the other and no other channel of its loop has that ring:
    the ring's positions then continue from one loop to the next. Sets `owner`."""
    owners: list[Channel] = []
    for ch in chans:
        ch.owner = None
    for ch in chans:
        for o in owners if ch.in_loop else ():
            if (o.in_loop and _types(o) == _types(ch) and not o.loop.is_ancestor(ch.loop)
                    and not ch.loop.is_ancestor(o.loop)
                    and all(c.loop is not ch.loop for c in chans if c.owner is o)):
                ch.owner = o
                break
        if ch.owner is None:
            ch.owner = ch
            owners.append(ch)
    return owners


def _types(ch: Channel) -> list:
    return [ld.results[0].type for ld in ch.loads]


def _check_not_carried(loop: scf.ForOp, chans: list[Channel]) -> None:
    """A tile the consumer borrows from a ring slot for one iteration cannot be
    carried into the next: the slot is released (and refilled) every iteration."""
    yield_op = loop.body.block.last_op
    carried = loop.attributes[CARRIED_ATTR].data
    for ch in chans:
        if ch.loop is not loop:
            continue
        for ld in ch.loads:
            held = aliases(loop.body.block, {ld.results[0]})
            for j, v in enumerate(yield_op.operands):
                if v in held and CONSUMER in carried[j].get_values():
                    raise error_at(ld, f"ws-distribute: this TMA-loaded tile reaches the next iteration (the "
                                       f"loop's scf.yield operand #{j}); it lives in an aref slot that is released "
                                       f"every iteration: carry a tile computed from it instead, or load it in the "
                                       f"iteration that uses it")


class _Builder:
    """Builds one partition's body from the tagged kernel."""

    views = VIEW_OPS  # ops whose results alias a borrowed slot

    def __init__(self, kernel: func.FuncOp, loop: scf.ForOp | list[scf.ForOp], chans: list[Channel], pid: int):
        self.loops = [loop] if isinstance(loop, scf.ForOp) else loop
        self.kernel, self.loop, self.chans, self.pid = kernel, self.loops[0], chans, pid
        self.mapping: dict[SSAValue, SSAValue] = {}
        self.load_chan = {ld: ch for ch in chans for ld in ch.loads}
        self.positions = RingPositions([(ch.ring, ch.loop) for ch in chans])

    def mine(self, op: Operation) -> bool:
        return self.pid in partitions_of(op)

    def value(self, v: SSAValue, user: Operation) -> SSAValue:
        """`v` as this partition has it; a located error if it does not (the
        ws.partition / ws.carried tags do not give it the value `user` needs)."""
        got = self.mapping.get(v)
        if got is None:
            where = v.owner if isinstance(v, OpResult) else v.owner.parent_op()
            if where in self.loops:  # a loop result or iter_arg: who carries it
                j = v.index if isinstance(v, OpResult) else v.index - 1
                what = f"loop value #{j}, which ws.carried gives to partitions " \
                       f"{list(where.attributes[CARRIED_ATTR].data[j].get_values())}"
            else:
                what = f"computed by '{where.name}' in partitions {partitions_of(where)}"
            raise error_at(user, f"ws-distribute: '{user.name}' runs in partition {self.pid}, which does not have "
                                 f"its operand ({what}): the ws.partition / ws.carried tags are inconsistent; "
                                 "run ws-partition again")
        return got

    def clone_into(self, block: Block, op: Operation) -> None:
        for inner in op.walk():  # every value the op (and its regions) takes from outside
            for v in inner.operands:
                owner = v.owner if isinstance(v, OpResult) else v.owner.parent_op()
                if owner is None or not op.is_ancestor(owner):
                    self.value(v, op)
        new = op.clone(value_mapper=self.mapping)
        for inner in new.walk():
            for a in (PARTITION_ATTR, ROLE_ATTR, CARRIED_ATTR):
                inner.attributes.pop(a, None)
        block.add_op(new)

    def ops(self, block: Block, ops, pos_of) -> list[tuple[GetOp, Channel]]:
        """Clone this partition's ops; producer loads become puts for the
        consumer's channels, and gets for the consumer. Returns the gets.
        `pos_of(ring)`: the ring's position in this block."""
        gets = []
        for op in ops:
            if op.name in ("scf.yield", "func.return"):
                continue
            if op in self.loops:
                self.build_loop(block, op)
                continue
            ch = self.load_chan.get(op)
            if ch is not None and self.pid == CONSUMER:
                if op is ch.loads[0]:
                    get = GetOp(ch.ring, pos_of(ch.ring))
                    block.add_op(get)
                    for ld, v in zip(ch.loads, get.results):
                        self.mapping[ld.results[0]] = v
                        v.name_hint = ld.results[0].name_hint
                    gets.append((get, ch))
                continue
            if not self.mine(op):
                continue
            self.clone_into(block, op)
            if ch is not None and op is ch.loads[-1]:
                block.add_op(PutOp(ch.ring, pos_of(ch.ring), [self.mapping[ld.results[0]] for ld in ch.loads]))
        return gets

    def build_loop(self, block: Block, loop: scf.ForOp | None = None) -> None:
        loop = loop or self.loop
        carried = [j for j, parts in enumerate(loop.attributes[CARRIED_ATTR].data)
                   if self.pid in parts.get_values()]
        m = self.mapping
        # Rings used in the loops nested in this one: their position bases are carried around it.
        inits = self.positions.open(block, loop)
        body = Block(arg_types=[loop.body.block.args[0].type,
                                *(loop.body.block.args[j + 1].type for j in carried), *(v.type for v in inits)])
        new = scf.ForOp(*(self.value(v, loop) for v in (loop.lb, loop.ub, loop.step)),
                        [*(self.value(loop.iter_args[j], loop) for j in carried), *inits], Region(body))
        iv = body.args[0]
        iv.name_hint = loop.body.block.args[0].name_hint
        m[loop.body.block.args[0]] = iv
        for new_arg, j in zip(body.args[1:], carried):
            old = loop.body.block.args[j + 1]
            new_arg.name_hint = old.name_hint
            m[old] = new_arg
        pos_of = self.positions.positions(loop, body, body.args[1 + len(carried):], iv, m)
        gets = self.ops(body, list(loop.body.block.ops), pos_of)
        yield_op = loop.body.block.last_op
        body.add_op(scf.YieldOp(*[self.value(yield_op.operands[j], yield_op) for j in carried],
                                *self.positions.yielded(loop)))
        for get, ch in gets:
            release_after_last_use(body, get, ConsumedOp(ch.ring, get.position), self.views)
        if SCHEDULE_ATTR in loop.attributes:  # every loop copy keeps the ws-schedule result
            new.attributes[SCHEDULE_ATTR] = loop.attributes[SCHEDULE_ATTR]
        block.add_op(new)
        for res, j in zip(new.results, carried):
            res.name_hint = loop.results[j].name_hint
            m[loop.results[j]] = res
        self.positions.close(loop, new, new.results[len(carried):])

    def build(self, block: Block) -> None:
        zero: list[SSAValue] = []

        def pos0(ring: SSAValue | None = None) -> SSAValue:
            if not zero:
                zero.append(const(block, 0))
            return zero[0]

        gets = self.ops(block, list(self.kernel.body.block.ops), pos0)
        for get, ch in gets:
            release_after_last_use(block, get, ConsumedOp(ch.ring, get.position), self.views)


@dataclass(frozen=True)
class DistributePass(ModulePass):
    """Split tagged kernels into warp-group partitions that talk through aref rings of depth `depth`."""

    name = "ws-distribute"
    depth: int = 3

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.depth < 1:
            raise WsError(f"ws-distribute: depth must be >= 1, got {self.depth}", "ws-opt")
        check_schedule(op)  # ws.* attributes are input: validated before they are honoured
        for kernel in kernels(op):
            if PARTITIONED_ATTR not in kernel.attributes:
                continue  # not partitioned (ws-partition left a remark) or not run
            if any(isinstance(o, RegionOp) for o in kernel.walk()):
                raise error_at(kernel, "ws-distribute: kernel is already warp-specialized")
            self.distribute(kernel)

    def distribute(self, kernel: func.FuncOp) -> None:
        loops = tile_loops(kernel)
        if not loops or any(CARRIED_ATTR not in lp.attributes for lp in loops):
            raise error_at(kernel, "ws-distribute: the kernel's partition tags are stale; run ws-partition again")
        loop = loops[0]
        names = [n.strip() for n in kernel.attributes[PARTITIONED_ATTR].data.split(",")]
        _check_tags(kernel, loops, len(names))
        if len(names) > 2:
            if len(loops) > 1:
                raise error_at(loops[1], f"ws-distribute: {len(names)} partitions (a ws-schedule warp assignment) "
                                         "in a kernel with several tile loops: only one producer and one consumer "
                                         "partition run several loops; run ws-partition again")
            _ScheduledDistribution(kernel, loop, names, self.depth).run()
            return
        loads = [o for o in kernel.body.walk() if isinstance(o, DescLoadOp) and PRODUCER in partitions_of(o)
                 and CONSUMER not in partitions_of(o)]
        chans = channels(loads, loops)
        share_rings(chans)
        for lp in loops:
            _check_not_carried(lp, chans)

        entry = Block()
        for ch in chans:
            if ch.owner is not ch:
                continue
            ring_t = RingType([ld.results[0].type for ld in ch.loads], self.depth if ch.in_loop else 1)
            create = CreateOp(ring_t)
            create.ring.name_hint = "aref_" + "_".join(ld.results[0].name_hint or "t" for ld in ch.loads)
            entry.add_op(create)
            ch.ring = create.ring
        for ch in chans:
            ch.ring = ch.owner.ring

        warps_attr = kernel.attributes.get(NUM_WARPS_ATTR)
        consumer_warps = warps_attr.value.data if isinstance(warps_attr, IntegerAttr) else 4
        parts = [_partition(pid, role, warps, regs, _Builder(kernel, loops, chans, pid))
                 for pid, role, warps, regs in ((PRODUCER, "producer", PRODUCER_WARPS, PRODUCER_REGS),
                                                (CONSUMER, "consumer", consumer_warps,
                                                 consumer_regs(consumer_warps)))]
        _install(kernel, entry, parts, consumer_warps)


def _check_tags(kernel: func.FuncOp, loop: scf.ForOp | list[scf.ForOp], n: int) -> None:
    """Every op that runs (yields and returns follow their parent) is tagged with
    partitions among the kernel's `n` (ws.partitioned), and so is every iter_arg of the tile loops."""
    loops = [loop] if isinstance(loop, scf.ForOp) else loop
    for op in kernel.body.walk():
        if op.name in ("scf.yield", "func.return"):
            continue
        parts = partitions_of(op)
        if not parts and op not in loops:
            raise error_at(op, "ws-distribute: this op has no ws.partition tag; the kernel's partition tags are "
                               "stale; run ws-partition again")
        if any(not 0 <= p < n for p in parts):
            raise error_at(op, f"ws-distribute: ws.partition {parts} names a partition the kernel does not have "
                               f"(ws.partitioned lists {n})")
    for loop in loops:
        for j, a in enumerate(loop.attributes[CARRIED_ATTR].data):
            parts = list(a.get_values())
            if any(not 0 <= p < n for p in parts):
                raise error_at(loop, f"ws-distribute: ws.carried entry #{j} {parts} names a partition the kernel "
                                     f"does not have (ws.partitioned lists {n})")
            if not parts and any(u.operation is not loop for u in loop.results[j].uses):
                raise error_at(loop, f"ws-distribute: loop result #{j} is used but ws.carried gives it no "
                                     "partition; run ws-partition again")


def _partition(pid: int, role: str, warps: int, regs: int, builder: "_Builder") -> PartitionOp:
    """One partition whose body `builder` writes (kernel arguments stay shared)."""
    part = PartitionOp(pid, warps, regs=regs, role=role)
    for arg in builder.kernel.body.block.args:
        builder.mapping[arg] = arg
    builder.build(part.body.block)
    return part


def _install(kernel: func.FuncOp, entry: Block, parts: list[PartitionOp], consumer_warps: int,
             detail: str = "") -> None:
    """Make `entry` + the warp_group.region of `parts` the kernel's body."""
    entry.add_op(RegionOp(parts))
    _replace_body(kernel, entry)
    kernel.attributes[NUM_WARPS_ATTR] = IntegerAttr(PRODUCER_WARPS + consumer_warps, 32)
    kernel.attributes["ws.distributed"] = StringAttr(
        f"producer warps {PRODUCER_WARPS}, consumer warps {consumer_warps}{detail}")
    del kernel.attributes[PARTITIONED_ATTR]


def _replace_body(kernel: func.FuncOp, entry: Block) -> None:
    entry.add_op(func.ReturnOp())

    old = kernel.body.block
    for arg in old.args:
        new_arg = entry.insert_arg(arg.type, len(entry.args))
        new_arg.name_hint = arg.name_hint
        arg.replace_all_uses_with(new_arg)
    kernel.body.insert_block_before(entry, old)
    kernel.body.detach_block(old)
    for o in reversed(list(old.ops)):
        o.drop_all_references()
    old.erase(safe_erase=False)


# --------------------------------------------------------------------------
# Several compute partitions (a ws-schedule warp assignment)


@dataclass
class _Transfer:
    """One value sent from partition `src` to the partitions `dsts` through its own aref
    ring: `loop` every iteration (ring of depth D), `pre` once where it is defined outside
    the loop, `post` a loop result after the loop (both depth 1). Every receiver gets and
    releases the same slot (the ring's EMPTY barrier counts them all): a tile is put once,
    and a TMA tile loaded once, however many partitions read it."""

    value: SSAValue
    src: int
    dsts: list[int]
    kind: str
    ring: SSAValue | None = None


def transfers_of(kernel: func.FuncOp, loop: scf.ForOp) -> list[_Transfer]:
    """Every value an op of one partition uses but another partition computes, with the
    partitions that use it."""
    carried = [list(a.get_values()) for a in loop.attributes[CARRIED_ATTR].data]
    out: dict[SSAValue, _Transfer] = {}

    def send(v: SSAValue, src: int, p: int, kind: str) -> None:
        t = out.setdefault(v, _Transfer(v, src, [], kind))
        if p not in t.dsts:
            t.dsts.append(p)
    yield_op = loop.body.block.last_op
    for op in kernel.body.walk():
        if op is loop or op.name in ("scf.yield", "func.return") or PARTITION_ATTR not in op.attributes:
            continue
        for p in partitions_of(op):
            for inner in op.walk():
                for v in inner.operands:
                    if not isinstance(v, OpResult):
                        continue
                    owner = v.op
                    if owner is loop:
                        if p not in carried[v.index]:
                            send(v, carried[v.index][0], p, "post")
                        continue
                    if owner.is_ancestor(inner) and owner is not inner and op.is_ancestor(owner):
                        continue  # defined inside the op itself
                    if p in partitions_of(owner):
                        continue
                    if not isinstance(v.type, TensorType):  # an aref carries tiles only
                        raise error_at(op, f"ws-distribute: '{op.name}' runs in partition {p} but uses a {v.type} "
                                           f"that only partitions {partitions_of(owner)} compute (a scalar is "
                                           "recomputed where it is needed, not sent); the ws.partition tags are "
                                           "inconsistent; run ws-partition again")
                    kind = "loop" if owner.parent_op() is loop else "pre"
                    send(v, partitions_of(owner)[0], p, kind)
    for j, parts in enumerate(carried):
        src = yield_op.operands[j]
        if isinstance(src, OpResult) and not set(parts) <= set(partitions_of(src.op)):
            raise error_at(loop, "ws-distribute: a carried value is yielded by another partition "
                                 "than the one carrying it; run ws-partition again")
    return list(out.values())


class _ScheduledBuilder(_Builder):
    """One partition's body: its own ops, a put after each op whose result
    another partition uses, a get where a value it uses from another partition
    is defined, loop results sent and received after the loop."""

    # Any layout-only op may alias a received tile: release after its last use too.
    views = (TransOp, ExpandDimsOp, BroadcastOp)

    def __init__(self, kernel, loop, pid: int, transfers: list[_Transfer]):
        super().__init__(kernel, loop, [], pid)
        self.sends: dict[Operation, list[_Transfer]] = {}
        self.recvs: dict[Operation, list[_Transfer]] = {}
        self.post_sends = [t for t in transfers if t.kind == "post" and t.src == pid]
        self.post_recvs = [t for t in transfers if t.kind == "post" and pid in t.dsts]
        for t in transfers:
            if t.kind != "post":
                if t.src == pid:
                    self.sends.setdefault(t.value.owner, []).append(t)
                if pid in t.dsts:
                    self.recvs.setdefault(t.value.owner, []).append(t)

    def _get(self, block: Block, t: _Transfer, pos_of) -> tuple[GetOp, _Transfer]:
        get = GetOp(t.ring, pos_of())
        block.add_op(get)
        self.mapping[t.value] = get.results[0]
        get.results[0].name_hint = t.value.name_hint
        return get, t

    def ops(self, block: Block, ops, pos_of):
        gets = []
        for op in ops:
            if op.name in ("scf.yield", "func.return"):
                continue
            if op is self.loop:
                self.build_loop(block)
                for t in self.post_sends:
                    block.add_op(PutOp(t.ring, pos_of(), [self.mapping[t.value]]))
                for t in self.post_recvs:
                    gets.append(self._get(block, t, pos_of))
                continue
            if self.mine(op):
                self.clone_into(block, op)
                for t in self.sends.get(op, []):
                    block.add_op(PutOp(t.ring, pos_of(), [self.mapping[t.value]]))
            for t in self.recvs.get(op, []):
                gets.append(self._get(block, t, pos_of))
        return gets


class _ScheduledDistribution:
    """Producer + one consumer partition per scheduled warp group (one warp
    group each); every value crossing partitions travels through its own ring, which
    every partition using it reads (`consumers` = their number)."""

    def __init__(self, kernel: func.FuncOp, loop: scf.ForOp, names: list[str], depth: int):
        self.kernel, self.loop, self.names, self.depth = kernel, loop, names, depth

    def run(self) -> None:
        kernel, loop = self.kernel, self.loop
        transfers = transfers_of(kernel, loop)
        entry = Block()
        for t in transfers:
            create = CreateOp(RingType([t.value.type], self.depth if t.kind == "loop" else 1),
                              len(t.dsts) if len(t.dsts) > 1 else None)
            v = t.value
            if t.kind == "post":  # a loop result: name the ring after the yielded value
                v = loop.body.block.last_op.operands[v.index]
            create.ring.name_hint = f"aref_{v.name_hint or 't'}"
            entry.add_op(create)
            t.ring = create.ring
        consumer_warps = PRODUCER_WARPS * (len(self.names) - 1)
        regs = consumer_regs(consumer_warps)
        parts = [_partition(pid, name, PRODUCER_WARPS, PRODUCER_REGS if pid == PRODUCER else regs,
                            _ScheduledBuilder(kernel, loop, pid, transfers))
                 for pid, name in enumerate(self.names)]
        _install(kernel, entry, parts, consumer_warps,
                 f" ({len(self.names) - 1} partitions of the ws-schedule warp assignment)")
