"""The synchronization skeleton of a warp-specialized kernel: for given scalar inputs,
the sequence of synchronizing operations each partition executes.

Partitions exchange tiles, never scalars (aref payloads are tensors), so each
partition's control flow depends only on the kernel's scalar arguments, the program
ids and constants: it can be run alone. `traces` does that for every partition of
every `warp_group.region` (aref level) or `nvgpu.wg.dispatch` (after the lowering),
computing scalars only (tiles are never built) and recording one `Ev` per executed
aref / mbarrier / named-barrier / gather / turn op:

    warp_group.partition 1 consumer ...        partition 1: get %ab 0, consumed %ab 0,
      scf.for %k = %c0 to %kt ... {    ==>                 get %ab 1, consumed %ab 1, ...
        aref.get %ab[%k] ... aref.consumed %ab[%k]        (K = 700: 11 iterations)

A scalar the skeleton cannot compute (derived from tile data) is `Unknown`, with a
key built from how it was computed, so that the same computation cloned into two
partitions stands for the same value; a loop bound or branch condition that is
`Unknown` is decided from that key (both partitions decide alike).
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Block, Operation

from wsdialects.nvgpu.barriers import arrivals
from wsdialects.nvgpu.dispatch import executing_warps

# The ops the check follows; everything else only computes.
AREF_OPS = {"aref.put": "put", "aref.get": "get", "aref.consumed": "consumed"}
TEAM_OPS = {"warp_group.gather": "gather", "warp_group.turn_wait": "turn_wait", "warp_group.turn_pass": "turn_pass"}
BARRIER_OPS = {"nvgpu.mbarrier.try_wait.parity": "wait", "nvgpu.mbarrier.arrive": "arrive",
               "nvgpu.mbarrier.arrive_expect_tx": "arrive_tx", "nvgpu.tma.async_load": "tma",
               "nvvm.barrier": "bar_sync", "nvvm.barrier_arrive": "bar_arrive",
               "nvgpu.smem.view": "read", "nvgpu.tma.async_store": "read", "nvgpu.smem.store": "write"}
SYNC_OPS = {**AREF_OPS, **TEAM_OPS, **BARRIER_OPS}
CONTAINERS = ("warp_group.region", "nvgpu.wg.dispatch")


class Unknown:
    """A scalar computed from tile data (or an opaque value: a tile, a descriptor)."""

    __slots__ = ("key",)

    def __init__(self, key: int):
        self.key = key


class Unsupported(Exception):
    """The skeleton cannot follow this op (a region op it does not know holds sync ops)."""

    def __init__(self, op: Operation):
        super().__init__(op.name)
        self.op = op


class TooLong(Exception):
    """The inputs make the kernel run longer than the budget allows."""


@dataclass(frozen=True)
class Profile:
    """Scalar inputs: every integer argument `ints`, program ids and grid sizes; for a
    persistent kernel (`ws.persistent = {programs = N}`) `grid` is the user's grid its
    three trailing arguments carry, and min(N, tiles) programs run."""

    ints: int
    pid: tuple[int, int, int]
    nprog: tuple[int, int, int]
    grid: tuple[int, int, int] = (1, 1, 1)


PROFILES = (Profile(1, (0, 0, 0), (1, 1, 1)), Profile(700, (1, 1, 0), (3, 2, 1), (16, 17, 1)),
            Profile(300, (2, 0, 1), (5, 3, 2), (3, 50, 1)))
BUDGET = 8_000  # scalar ops and loop iterations evaluated per profile, over all partitions


@dataclass(eq=False)
class Ev:
    """One executed synchronizing op: `obj` is the ring / mbarrier array / named barrier
    it acts on, `pos` the ring position or mbarrier index, `arg` what else it needs
    (parity, arrival weight, bytes, threads)."""

    kind: str
    op: Operation
    obj: Any = None
    pos: int | None = None
    arg: int | None = None
    slot: tuple | None = None  # the shared-memory slot a TMA load writes: (buffer op, index)


@dataclass(eq=False)
class Party:
    """One partition (aref level) or warp-group branch (after the lowering)."""

    index: int
    op: Operation
    warps: int
    name: str
    events: list[Ev] = field(default_factory=list)

    @property
    def threads(self) -> int:
        return 32 * self.warps


@dataclass(eq=False)
class Trace:
    """The parties of one region/dispatch and their events for one profile, plus the
    mbarrier initializations executed before it (array op, index) -> (count, init op)."""

    container: Operation
    parties: list[Party]
    inits: dict[tuple[Operation, int], tuple[int, Operation]]


def _mix(*parts) -> int:
    return zlib.crc32(repr(parts).encode())


def _is_scalar(t) -> bool:
    return isinstance(t, IntegerType | IndexType) or type(t).__name__.startswith(("Float", "BFloat"))


def _known(x) -> bool:
    return isinstance(x, int | float | bool | np.generic)


def _as_int(x, key: int, span: int) -> int:
    """A concrete integer for a control decision (an Unknown one from its key)."""
    return int(x) if _known(x) else key % span


def region_parties(container: Operation) -> list[Party]:
    if container.name == "warp_group.region":
        return [Party(i, p, p.warps, f"partition {p.pid} ({p.role_name})") for i, p in enumerate(container.partitions)]
    return [Party(i, b, b.num_warps, f"warps {b.first_warp}-{b.first_warp + b.num_warps} ({b.role.data})")
            for i, b in enumerate(container.branches)]


def party_warps(op: Operation, party: Party) -> int:
    """Warps of `party` that execute `op`: one inside an `nvgpu.wg.lead_warp`."""
    n = executing_warps(op)
    return party.warps if n is None else n


def control_slice(kernel: Operation) -> set[Operation]:
    """The ops whose results reach a loop bound, a branch condition or an operand of a
    synchronizing op (the only values the skeleton computes)."""
    from xdsl.ir import BlockArgument, OpResult

    work = []
    for o in kernel.walk():
        if o.name == "scf.for":
            work += o.operands[:3]
        elif o.name == "scf.if":
            work.append(o.operands[0])
        elif o.name in SYNC_OPS or o.name == "nvgpu.mbarrier.init":
            work += [v for v in o.operands if not isinstance(v.type, TensorType)]
    ops: set[Operation] = set()
    seen = set()
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, BlockArgument):
            loop = v.block.parent_op()
            if loop is not None and loop.name == "scf.for" and v.index > 0:
                work += [loop.operands[2 + v.index], v.block.last_op.operands[v.index - 1]]
        elif isinstance(v, OpResult):
            op = v.op
            if op.name == "scf.for":
                work += [op.operands[3 + v.index], op.regions[0].block.last_op.operands[v.index]]
            elif op.name == "scf.if":
                work += [r.block.last_op.operands[v.index] for r in op.regions if r.blocks]
            elif op not in ops:
                ops.add(op)
                work += op.operands
    return ops


_MASK = {1: 1, 8: 0xFF, 16: 0xFFFF, 32: 0xFFFFFFFF, 64: 0xFFFFFFFFFFFFFFFF}


def _wrap(x: int, bits: int) -> int:
    x &= _MASK[bits]
    return x - (1 << bits) if bits > 1 and x >> (bits - 1) else x


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


_INT = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b, "arith.muli": lambda a, b: a * b,
    "arith.maxsi": max, "arith.minsi": min, "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b, "arith.divsi": _tdiv, "arith.remsi": lambda a, b: a - _tdiv(a, b) * b,
    "arith.ceildivsi": lambda a, b: -((-a) // b) if (a > 0) == (b > 0) else _tdiv(a, b),
    "arith.floordivsi": lambda a, b: a // b,
}
_CMP = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
        4: lambda a, b: a > b, 5: lambda a, b: a >= b}


# What `Skeleton.plan` found an op to be.
_RETURN, _LOOP, _BRANCH, _SYNC, _COMPUTE, _CONTAINER, _INIT, _UNSUPPORTED, _INLINE = (
    "return", "loop", "branch", "sync", "compute", "container", "init", "unsupported", "inline")


def _bits(t) -> int | None:
    if isinstance(t, IndexType):
        return 64
    return t.width.data if isinstance(t, IntegerType) and t.width.data in _MASK else None


class Skeleton:
    """Runs the scalar skeleton of one kernel for one profile."""

    def __init__(self, kernel: Operation, profile: Profile, budget: int = BUDGET, relevant=None):
        from wsdialects.interpreter.core import IMPLS
        from wsdialects.interpreter import ops_arith  # noqa: F401 - registers the arith semantics

        self.impls = IMPLS
        self.kernel, self.p, self.budget, self.steps = kernel, profile, budget, 0
        self.relevant = control_slice(kernel) if relevant is None else relevant
        self.events: list[Ev] | None = None
        self.party: Party | None = None
        self.traces: list[Trace] = []
        self.inits: dict[tuple[Operation, int], tuple[int, Operation]] = {}
        self.plans: dict[Block, list[tuple]] = {}

    def run(self) -> list[Trace]:
        env: dict = {}
        args = list(self.kernel.body.block.args)
        for i, a in enumerate(args):
            t = a.type
            env[a] = (self.p.ints if _bits(t) not in (None, 1) else
                      1.5 if _is_scalar(t) and _bits(t) is None else Unknown(_mix("arg", i)))
        contract = self.kernel.attributes.get("ws.persistent")
        programs = getattr(getattr(contract, "data", {}).get("programs"), "value", None)
        if programs is not None and len(args) >= 3:  # the launch contract of ws-persistent
            for a, g in zip(args[-3:], self.p.grid):
                env[a] = g
            launched = min(programs.data, self.p.grid[0] * self.p.grid[1] * self.p.grid[2])
            self.p = Profile(self.p.ints, (self.p.pid[0] % launched, 0, 0), (launched, 1, 1), self.p.grid)
        self.block(self.kernel.body.block, env, [])
        return self.traces

    # ------------------------------------------------------------------ evaluation

    def plan(self, block: Block) -> list[tuple]:
        """What `block` does, op by op, decided once per block (the module does not change
        while it runs): ops that neither compute a control value, synchronize nor hold such
        ops are left out; each entry keeps the op's operands (and results)."""
        plan = self.plans.get(block)
        if plan is None:
            plan = []
            for op in block.ops:
                name = op.name
                if name in ("scf.yield", "func.return"):
                    plan.append((_RETURN, op, tuple(op.operands)))
                    break
                if name == "scf.for":
                    plan.append((_LOOP, op))
                elif name == "scf.if":
                    plan.append((_BRANCH, op))
                elif name in SYNC_OPS:
                    plan.append((_SYNC, op, tuple(op.operands)))
                elif op in self.relevant:
                    results = tuple(op.results)
                    plan.append((_COMPUTE, op, tuple(op.operands), results,
                                 _bits(results[0].type) if results else None))
                elif name in CONTAINERS:
                    plan.append((_CONTAINER, op))
                elif name == "nvgpu.mbarrier.init":
                    plan.append((_INIT, op))
                elif name == "nvgpu.wg.lead_warp":  # the branch's first warp: its events are the branch's
                    plan.append((_INLINE, op))
                elif op.regions and any(o.name in SYNC_OPS or o.name in CONTAINERS for o in op.walk() if o is not op):
                    plan.append((_UNSUPPORTED, op))
            self.plans[block] = plan
        return plan

    def block(self, block: Block, env: dict, args: list) -> list:
        for a, v in zip(block.args, args):
            env[a] = v
        get = env.get
        for entry in self.plan(block):
            what, op = entry[0], entry[1]
            if what is _COMPUTE:
                self.steps += 1
                if self.steps > self.budget:
                    raise TooLong()
                for r, x in zip(entry[3], self.compute(op, [get(v) for v in entry[2]], entry[4])):
                    env[r] = x
            elif what is _SYNC:
                self.record(op, [get(v) for v in entry[2]])
            elif what is _RETURN:
                return [get(v) for v in entry[2]]
            elif what is _LOOP:
                self.loop(op, env)
            elif what is _BRANCH:
                self.branch(op, env)
            elif what is _INLINE:
                self.block(op.regions[0].blocks[0], env, [])
            elif what is _CONTAINER:
                self.container(op, env)
            elif what is _INIT:
                idx = get(op.operands[1])
                if _known(idx):
                    self.inits[(op.operands[0].owner, int(idx))] = (op.count.value.data, op)
            else:
                raise Unsupported(op)
        return []

    def branch(self, op: Operation, env: dict) -> None:
        c = env.get(op.operands[0])
        if not _known(c):
            _same_sync_both_ways(op)
        cond = bool(c) if _known(c) else bool(self.key(op, [c]) & 1)
        region = op.regions[0] if cond else op.regions[1]
        out = self.block(region.block, env, []) if region.blocks else []
        for r, x in zip(op.results, out):
            env[r] = x

    def loop(self, op: Operation, env: dict) -> None:
        vals = [env.get(v) for v in op.operands]
        if all(type(x) is int for x in vals[:3]):  # the usual case: no key needed
            lb, ub, step = vals[:3]
        else:
            key = self.key(op, vals[:3])
            lb, ub, step = (_as_int(x, _mix(key, i), 4) for i, x in enumerate(vals[:3]))
        carried = vals[3:]
        body = op.regions[0].block
        if step > 0 and self.steps + (ub - lb) // step * len(body.ops) > self.budget:
            raise TooLong()  # at once: an iteration costs about a step per op of the body
        i = lb
        while step > 0 and i < ub:
            self.steps += 1
            carried = self.block(body, env, [i, *carried])
            i += step
        for r, x in zip(op.results, carried):
            env[r] = x

    def key(self, op: Operation, vals: list) -> int:
        return _mix(op.name, *[(v.key,) if isinstance(v, Unknown) else v if _known(v) else id(v) for v in vals])

    def compute(self, op: Operation, vals: list, bits: int | None) -> list:
        """The results of `op` on `vals`; `bits` is the width of its first result's type."""
        name = op.name
        if bits and all(type(v) is int for v in vals):
            if name in _INT and not (name in ("arith.divsi", "arith.remsi", "arith.ceildivsi",
                                              "arith.floordivsi") and vals[1] == 0):
                return [_wrap(_INT[name](*vals), bits)]
            if name in ("arith.index_cast", "arith.extsi", "arith.trunci"):
                return [_wrap(vals[0], bits)]
            if name in ("arith.divui", "arith.remui") and vals[1] != 0:
                a, b = (v & _MASK[bits] for v in vals)
                return [_wrap(a // b if name == "arith.divui" else a % b, bits)]
        if name == "arith.cmpi" and all(type(v) is int for v in vals) and op.predicate.value.data in _CMP:
            return [_CMP[op.predicate.value.data](*vals)]
        if name in ("aref.create", "nvgpu.mbarrier.create", "nvgpu.smem.alloc"):
            return [op]
        if name == "arith.constant":
            v = op.value
            if isinstance(v, IntegerAttr | FloatAttr) and _is_scalar(op.results[0].type):
                return [v.value.data]
        elif name in ("tile.program_id", "tile.num_programs"):
            axis = op.axis.value.data
            return [(self.p.pid if name == "tile.program_id" else self.p.nprog)[axis]]
        elif name == "nvvm.read_sreg":
            reg = op.reg.data
            if reg[-1] in "xyz" and reg.startswith(("ctaid.", "nctaid.")):
                return [(self.p.pid if reg.startswith("ctaid.") else self.p.nprog)["xyz".index(reg[-1])]]
        elif name == "nvvm.elect_sync":
            return [True]
        elif (name.startswith(("arith.", "math.")) and name in self.impls and all(map(_known, vals))
              and all(_is_scalar(r.type) for r in op.results)):
            try:
                out = [x.item() if isinstance(x, np.generic) else x for x in self.impls[name](None, op, vals)]
                return [int(x) if isinstance(x, bool) and _bits(r.type) != 1 else x for x, r in zip(out, op.results)]
            except Exception:  # noqa: BLE001 - a fault (division by zero) leaves the value unknown
                pass
        key = self.key(op, vals)
        return [Unknown(_mix(key, i)) for i in range(len(op.results))]

    def record(self, op: Operation, vals: list) -> None:
        if self.events is None:
            return  # outside any partition: the structural checks report it
        kind = SYNC_OPS[op.name]
        pos = lambda x: int(x) if _known(x) else None  # noqa: E731
        vals = [None if isinstance(v, Unknown) else v for v in vals]
        if kind in ("put", "get", "consumed"):
            ev = Ev(kind, op, vals[0], pos(vals[1]))
        elif kind == "gather":
            ev = Ev(kind, op, op.groups.value.data, None, op.group.value.data)
        elif kind in ("turn_wait", "turn_pass"):
            ev = Ev(kind, op, op.n, None, op.g)
        elif kind == "wait":
            ev = Ev(kind, op, vals[0], pos(vals[1]), None if pos(vals[2]) is None else pos(vals[2]) & 1)
        elif kind == "arrive":
            ev = Ev(kind, op, vals[0], pos(vals[1]), arrivals(op.scope.data, party_warps(op, self.party)))
        elif kind == "arrive_tx":
            ev = Ev(kind, op, vals[0], pos(vals[1]), op.bytes.value.data)
        elif kind == "tma":
            n = len(op.coords)
            ev = Ev(kind, op, vals[-2], pos(vals[-1]), _slot_bytes(op.buffer.type), (vals[1 + n], pos(vals[2 + n])))
        elif kind in ("read", "write"):
            i = 1 if op.name == "nvgpu.smem.store" else 0
            ev = Ev(kind, op, vals[i], pos(vals[i + 1]))
        else:  # named barriers
            threads = op.threads.value.data if op.threads is not None else self.total
            ev = Ev(kind, op, op.id.value.data, None, threads)
        self.events.append(ev)

    def container(self, op: Operation, env: dict) -> None:
        parties = region_parties(op)
        self.total = sum(p.threads for p in parties)
        for party in parties:
            self.events, self.party = party.events, party
            self.block(party.op.regions[0].block, dict(env), [])
        self.events = self.party = None
        self.traces.append(Trace(op, parties, dict(self.inits)))


def _same_sync_both_ways(op: Operation) -> None:
    """An scf.if whose condition comes from tile data: the check follows one branch only,
    so both must synchronize alike (the same ops on the same rings and barriers)."""
    from collections import Counter

    from wsdialects.sync import Violation

    def sig(region) -> Counter:
        return Counter((o.name, o.operands[0] if o.operands else None, str(o.properties))
                       for o in region.walk() if o.name in SYNC_OPS and o.name not in ("nvgpu.smem.view",))

    a, b = (sig(r) for r in op.regions)
    if a != b:
        diff = sorted({n for (n, _, _) in (a - b) + (b - a)})
        raise Violation(op, f"the branches of this scf.if, whose condition depends on tile data, synchronize "
                            f"differently ({', '.join(diff)} on one path only): a partition's synchronization "
                            "must not depend on the data it computes")


@functools.lru_cache(maxsize=256)
def _slot_bytes(t) -> int:
    from wsdialects.lower.lower_aref import tile_bytes

    return tile_bytes(TensorType(t.element_type, list(t.get_shape())[1:]))


def traces(kernel: Operation, profile: Profile, relevant: set[Operation] | None = None) -> list[Trace] | None:
    """Every region's traces for `profile`, with the integer inputs shrunk until the run
    fits the budget (None: it never does)."""
    relevant = control_slice(kernel) if relevant is None else relevant
    ints = profile.ints
    while True:
        try:
            return Skeleton(kernel, Profile(ints, profile.pid, profile.nprog, profile.grid), relevant=relevant).run()
        except TooLong:
            if ints == 1:
                return None
            ints = max(1, ints // 4)
