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
`Unknown` is decided from that key (both partitions decide alike). An integer scalar
loaded from memory (`tile.load` of a group's size) is a value drawn from its key, so that
the arithmetic on it (a trip count, the drain after a pipelined loop) is computed alike.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Block, Operation

from wsdialects.nvgpu.barriers import arrivals
from wsdialects.nvgpu.dispatch import executing_warps
from wsdialects.nvgpu.memory import staging_alloc
from wsdialects.sync.plan import (_BRANCH, _CMP, _COMPUTE, _CONTAINER, _DIVLIKE, _F_CAST, _F_CMP, _F_CONST, _F_INT,
                                  _INIT, _INLINE, _INT, _LOOP, _MASK, _RETURN, _SYNC, _UNSUPPORTED, CONTAINERS, SYNC_OPS,
                                  Overrun, _bits, _fast_path, _is_scalar, _known, _wrap, sync_differs)


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


@dataclass(eq=False, slots=True)
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
    seen: set[int] = set()  # ids of the values met (an xDSL value hashes in Python)
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
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


def _ids(values) -> tuple[int, ...]:
    return tuple(id(v) for v in values)


def _opaque(x):
    """An event's ring / barrier operand: None where the skeleton does not know it."""
    return None if isinstance(x, Unknown) else x


def _pos(x) -> int | None:
    """An event's position or index: None where the skeleton does not know it."""
    if type(x) is int:
        return x
    return int(x) if _known(x) else None


def _sync_static(op: Operation):
    """What the event of a synchronizing op (`_EVENT`) needs besides its operands' values."""
    kind = SYNC_OPS[op.name]
    if kind == "gather":
        return op.groups.value.data, op.group.value.data
    if kind in ("turn_wait", "turn_pass"):
        return op.n, op.g
    if kind == "arrive":  # the scope and the warps executing it (None: the party's, see `party_warps`)
        return op.scope.data, executing_warps(op)
    if kind == "arrive_tx":
        return op.bytes.value.data
    if kind == "tma":  # where its coordinates end, and the bytes of a slot of its buffer
        return len(op.coords), _slot_bytes(op.buffer.type)
    if kind in ("read", "write"):
        return 1 if op.name == "nvgpu.smem.store" else 0
    if kind in ("bar_sync", "bar_arrive"):  # None: every thread of the region
        return op.id.value.data, op.threads.value.data if op.threads is not None else None
    return None


# The event of a synchronizing op of each kind, from the values of the operands it needs
# (`get` of their ids) and its `_sync_static` part: (skeleton, kind, op, ids, get, static) -> Ev.
def _ring_event(sk, kind, op, ids, get, static) -> Ev:
    return Ev(kind, op, _opaque(get(ids[0])), _pos(get(ids[1])))


def _team_event(sk, kind, op, ids, get, static) -> Ev:
    return Ev(kind, op, static[0], None, static[1])


def _wait_event(sk, kind, op, ids, get, static) -> Ev:
    parity = _pos(get(ids[2]))
    return Ev(kind, op, _opaque(get(ids[0])), _pos(get(ids[1])), None if parity is None else parity & 1)


def _arrive_event(sk, kind, op, ids, get, static) -> Ev:
    scope, warps = static
    n = arrivals(scope, sk.party.warps if warps is None else warps)
    return Ev(kind, op, _opaque(get(ids[0])), _pos(get(ids[1])), n)


def _arrive_tx_event(sk, kind, op, ids, get, static) -> Ev:
    return Ev(kind, op, _opaque(get(ids[0])), _pos(get(ids[1])), static)


def _tma_event(sk, kind, op, ids, get, static) -> Ev:
    coords, nbytes = static
    return Ev(kind, op, _opaque(get(ids[-2])), _pos(get(ids[-1])), nbytes,
              (_opaque(get(ids[1 + coords])), _pos(get(ids[2 + coords]))))


def _access_event(sk, kind, op, ids, get, static) -> Ev:
    if isinstance(static, Operation):  # a TMA store staged in slot 0 of `static`
        return Ev(kind, op, static, 0)
    return Ev(kind, op, _opaque(get(ids[static])), _pos(get(ids[static + 1])))


def _named_event(sk, kind, op, ids, get, static) -> Ev:
    return Ev(kind, op, static[0], None, sk.total if static[1] is None else static[1])


_EVENT = {"put": _ring_event, "get": _ring_event, "consumed": _ring_event, "gather": _team_event,
          "turn_wait": _team_event, "turn_pass": _team_event, "wait": _wait_event, "arrive": _arrive_event,
          "arrive_tx": _arrive_tx_event, "tma": _tma_event, "read": _access_event, "write": _access_event,
          "bar_sync": _named_event, "bar_arrive": _named_event}


class Skeleton:
    """Runs the scalar skeleton of one kernel for one profile. Values are kept by the id of
    their SSA value (the module does not change while it runs): an xDSL value hashes in
    Python, and a run looks values up millions of times."""

    def __init__(self, kernel: Operation, profile: Profile, budget: int = BUDGET, relevant=None,
                 plans: dict | None = None):
        from wsdialects.interpreter.core import IMPLS
        from wsdialects.interpreter import ops_arith  # noqa: F401 - registers the arith semantics

        self.impls = IMPLS
        self.kernel, self.p, self.budget, self.steps = kernel, profile, budget, 0
        self.relevant = control_slice(kernel) if relevant is None else relevant
        self.events: list[Ev] | None = None
        self.party: Party | None = None
        self.traces: list[Trace] = []
        self.inits: dict[tuple[Operation, int], tuple[int, Operation]] = {}
        # id(block) -> its plan; shareable by the runs of one kernel with one `relevant`
        self.plans: dict = {} if plans is None else plans
        self.overrun = Overrun(self.plan, self.plans)
        self.ahead: int | None = None  # see `_ahead`

    def run(self) -> list[Trace]:
        env: dict = {}
        args = list(self.kernel.body.block.args)
        for i, a in enumerate(args):
            t = a.type
            env[id(a)] = (self.p.ints if _bits(t) not in (None, 1) else
                          1.5 if _is_scalar(t) and _bits(t) is None else Unknown(_mix("arg", i)))
        contract = self.kernel.attributes.get("ws.persistent")
        programs = getattr(getattr(contract, "data", {}).get("programs"), "value", None)
        if programs is not None and len(args) >= 3:  # the launch contract of ws-persistent
            for a, g in zip(args[-3:], self.p.grid):
                env[id(a)] = g
            launched = min(programs.data, self.p.grid[0] * self.p.grid[1] * self.p.grid[2])
            self.p = Profile(self.p.ints, (self.p.pid[0] % launched, 0, 0), (launched, 1, 1), self.p.grid)
        self.block(self.kernel.body.block, env, [])
        return self.traces

    # ------------------------------------------------------------------ evaluation

    def plan(self, block: Block) -> tuple[tuple[int, ...], list[tuple]]:
        """What `block` does, op by op, decided once per block (the module does not change
        while it runs): ops that neither compute a control value, synchronize nor hold such
        ops are left out; each entry keeps the ids of the op's operands (and results).
        Returns (ids of the block's arguments, entries)."""
        plan = self.plans.get(id(block))
        if plan is None:
            entries = []
            for op in block.ops:
                name = op.name
                if name in ("scf.yield", "func.return"):
                    entries.append((_RETURN, op, _ids(op.operands)))
                    break
                if name == "scf.for":
                    body = op.regions[0].block
                    entries.append((_LOOP, op, _ids(op.operands), _ids(op.results), body, len(body.ops)))
                elif name == "scf.if":
                    entries.append((_BRANCH, op, id(op.operands[0]), _ids(op.results)))
                elif name in SYNC_OPS:
                    kind = SYNC_OPS[name]
                    entries.append((_SYNC, op, _ids(op.operands), kind, _sync_static(op), _EVENT[kind]))
                elif name == "tile.desc_store" and (slot := staging_alloc(op)) is not None:
                    entries.append((_SYNC, op, (), "write", slot, _access_event))  # staged in a released ring slot
                elif op in self.relevant:
                    results = tuple(op.results)
                    bits = _bits(results[0].type) if results else None
                    entries.append((_COMPUTE, op, _ids(op.operands), _ids(results), bits, *_fast_path(op, bits)))
                elif name in CONTAINERS:
                    entries.append((_CONTAINER, op))
                elif name == "nvgpu.mbarrier.init":
                    entries.append((_INIT, op, id(op.operands[1])))
                elif name == "nvgpu.wg.lead_warp":  # the branch's first warp: its events are the branch's
                    entries.append((_INLINE, op, op.regions[0].blocks[0]))
                elif op.regions and any(o.name in SYNC_OPS or o.name in CONTAINERS for o in op.walk() if o is not op):
                    entries.append((_UNSUPPORTED, op))
            plan = self.plans[id(block)] = (_ids(block.args), entries)
        return plan

    def block(self, block: Block, env: dict, args: list) -> list:
        arg_ids, entries = self.plan(block)
        for a, v in zip(arg_ids, args):
            env[a] = v
        return self._exec(entries, env)

    def _exec(self, entries: list[tuple], env: dict) -> list:
        """Run a block's plan entries; returns what its terminator yields (or [])."""
        get = env.get
        for entry in entries:
            what = entry[0]
            if what is _COMPUTE:
                self.steps += 1
                if self.steps > self.budget:
                    raise TooLong()
                _, op, ids, results, bits, fast, data = entry
                if fast == _F_CONST:
                    env[results[0]] = data
                    continue
                if fast == _F_INT:
                    a, b = get(ids[0]), get(ids[1])
                    if type(a) is int and type(b) is int and not (data[1] and b == 0):
                        x = data[0](a, b)
                        env[results[0]] = x if data[2] <= x < data[3] else _wrap(x, bits)
                        continue
                elif fast == _F_CAST:
                    a = get(ids[0])
                    if type(a) is int:
                        env[results[0]] = a if data[0] <= a < data[1] else _wrap(a, bits)
                        continue
                elif fast == _F_CMP:
                    a, b = get(ids[0]), get(ids[1])
                    if type(a) is int and type(b) is int:
                        env[results[0]] = data(a, b)
                        continue
                for r, x in zip(results, self.compute(op, [get(v) for v in ids], bits)):
                    env[r] = x
            elif what is _SYNC:
                if self.events is not None:  # (outside any partition: the structural checks report it)
                    _, op, ids, kind, static, event = entry
                    self.events.append(event(self, kind, op, ids, get, static))
            elif what is _RETURN:
                return [get(v) for v in entry[2]]
            elif what is _LOOP:
                self.loop(entry, env)
            elif what is _BRANCH:
                self.branch(entry, env)
            elif what is _INLINE:
                self.block(entry[2], env, [])
            elif what is _CONTAINER:
                self.container(entry[1], env)
            elif what is _INIT:
                idx = get(entry[2])
                if _known(idx):
                    op = entry[1]
                    self.inits[(op.operands[0].owner, int(idx))] = (op.count.value.data, op)
            else:
                raise Unsupported(entry[1])
        return []

    def branch(self, entry: tuple, env: dict) -> None:
        _, op, cond_id, results = entry
        c = env.get(cond_id)
        if not _known(c):
            _same_sync_both_ways(op)
        cond = bool(c) if _known(c) else bool(self.key(op, [c]) & 1)
        region = op.regions[0] if cond else op.regions[1]
        out = self.block(region.block, env, []) if region.blocks else []
        for r, x in zip(results, out):
            env[r] = x

    def loop(self, entry: tuple, env: dict) -> None:
        _, op, operands, results, body, body_ops = entry
        get = env.get
        vals = [get(v) for v in operands]
        if all(type(x) is int for x in vals[:3]):  # the usual case: no key needed
            lb, ub, step = vals[:3]
        else:
            key = self.key(op, vals[:3])
            lb, ub, step = (_as_int(x, _mix(key, i), 4) for i, x in enumerate(vals[:3]))
        carried = vals[3:]
        if step > 0 and self.steps + (ub - lb) // step * body_ops > self.budget:
            raise TooLong()  # at once: an iteration costs about a step per op of the body
        i = lb
        if step > 0 and i < ub:
            (iv, *arg_ids), entries = self.plan(body)
            run = self._exec
            first = True
            while i < ub:
                self.steps += 1
                env[iv] = i
                for a, v in zip(arg_ids, carried):
                    env[a] = v
                carried = run(entries, env)
                i += step
                if first and i < ub:  # a run that will surely overrun stops now (`Overrun`)
                    first = False
                    per = self.overrun.per_iteration(op, body, env)
                    if per is not None:
                        least = self.steps + ((ub - i + step - 1) // step - 1) * per
                        if least + 2 > self.budget or (self.ahead is not None and least + self.ahead > self.budget):
                            raise TooLong()  # certain: see `Overrun`, `_ahead`
        for r, x in zip(results, carried):
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
            if name in _DIVLIKE + ("arith.divui", "arith.remui", "arith.ceildivui") and vals[1] == 0:
                from wsdialects.sync import Fault

                raise Fault(op, f"{name} divides by zero here (divisor {_operand_name(op)} is 0), and the "
                                "kernel's control flow (loop bounds, ring positions) depends on the result")
            try:
                out = [x.item() if isinstance(x, np.generic) else x for x in self.impls[name](None, op, vals)]
                return [int(x) if isinstance(x, bool) and _bits(r.type) != 1 else x for x, r in zip(out, op.results)]
            except Exception:  # noqa: BLE001 - another fault leaves the value unknown
                pass
        key = self.key(op, vals)
        if name == "tile.load" and len(op.results) == 1 and _bits(op.results[0].type) and _is_scalar(op.results[0].type):
            # an integer read from memory (a group's size or offset): a value from 1 to 4 drawn from
            # the key, the same in every partition that reads it alike, so that what the partitions
            # compute from it (a loop's trip count and the drain after it) agrees
            return [1 + key % 4]
        return [Unknown(_mix(key, i)) for i in range(len(op.results))]

    def container(self, op: Operation, env: dict) -> None:
        parties = region_parties(op)
        self.total = sum(p.threads for p in parties)
        outer = self.ahead
        needs = [None] + [self._steps_to_estimate(party, env) for party in parties[1:]]
        for i, party in enumerate(parties):
            self.ahead = self._ahead(parties, needs, i, env)
            if self.ahead is not None and self.steps + self.ahead > self.budget:
                raise TooLong()  # certain: see `_ahead`
            self.events, self.party = party.events, party
            self.block(party.op.regions[0].block, dict(env), [])
        self.events = self.party = None
        self.ahead = outer
        self.traces.append(Trace(op, parties, dict(self.inits)))

    def _ahead(self, parties: list[Party], needs: list, i: int, env: dict) -> int | None:
        """The fewest steps, counted from the start of partition `i`, at which a later partition
        surely overruns: partition k estimates its first loop (`loop`: steps + trips x ops of
        the body) after `needs[k]` steps of its own, and partitions i..k-1 count at least 0
        steps and raise nothing but `TooLong` (`Overrun.quiet`). None: no such partition. A
        run of partition `i` that will count more than the budget minus this stops at once
        (before it starts, or after the first iteration of one of its loops)."""
        best = None
        for k in range(i + 1, len(parties)):
            if not self.overrun.quiet(parties[k - 1].op, env):
                break
            if needs[k] is not None and (best is None or needs[k] < best):
                best = needs[k]
        return best

    def _steps_to_estimate(self, party: Party, env: dict) -> int | None:
        """The steps `party` counts up to the estimate at its first loop plus that estimate
        (trips x ops of the body), where it gets there computing plain values and synchronizing
        only (run here on copies); None where it does not."""
        spec = Skeleton(self.kernel, self.p, 1 << 62, self.relevant, self.plans)
        spec.total, spec.events, spec.party = self.total, [], party
        env = dict(env)
        try:
            for entry in self.plan(party.op.regions[0].block)[1]:
                if entry[0] is _LOOP:
                    lb, ub, step = (env.get(v) for v in entry[2][:3])
                    if type(lb) is int and type(ub) is int and type(step) is int and step > 0:
                        return spec.steps + (ub - lb) // step * entry[5]
                    return None
                if entry[0] is not _COMPUTE and entry[0] is not _SYNC:
                    return None
                spec._exec([entry], env)
        except Exception:  # noqa: BLE001 - the run itself reports it
            return None
        return None


def _operand_name(op: Operation) -> str:
    v = op.operands[1]
    return f"%{v.name_hint}" if v.name_hint else "the second operand"


def _same_sync_both_ways(op: Operation) -> None:
    """An scf.if whose condition comes from tile data: the check follows one branch only,
    so both must synchronize alike (the same ops on the same rings and barriers)."""
    from wsdialects.sync import Violation

    diff = sync_differs(op)
    if diff:
        raise Violation(op, f"the branches of this scf.if, whose condition depends on tile data, synchronize "
                            f"differently ({', '.join(diff)} on one path only): a partition's synchronization "
                            "must not depend on the data it computes")


@functools.lru_cache(maxsize=256)
def _slot_bytes(t) -> int:
    from wsdialects.lower.lower_aref import tile_bytes

    return tile_bytes(TensorType(t.element_type, list(t.get_shape())[1:]))


def traces(kernel: Operation, profile: Profile, relevant: set[Operation] | None = None,
           plans: dict | None = None) -> list[Trace] | None:
    """Every region's traces for `profile`, with the integer inputs shrunk until the run
    fits the budget (None: it never does). `plans`: the blocks' plans (`Skeleton.plan`),
    shared by the calls for one kernel and one `relevant`."""
    relevant = control_slice(kernel) if relevant is None else relevant
    plans = {} if plans is None else plans
    ints = profile.ints
    while True:
        try:
            return Skeleton(kernel, Profile(ints, profile.pid, profile.nprog, profile.grid), relevant=relevant,
                            plans=plans).run()
        except TooLong:
            if ints == 1:
                return None
            ints = max(1, ints // 4)
