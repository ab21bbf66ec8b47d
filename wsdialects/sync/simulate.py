"""The partitions' traces run against each other, with the blocking semantics of what
they synchronize on:

- an aref slot (Tawa Fig. 4): a put waits for the slot to be empty, a get for the
  position it asks for, the slot empties once all `consumers` released it;
- a gather: the k-th gather of every group of the team meets the others';
- a turn (`ws-pingpong`): `turn_wait g` needs a turn passed to g and not yet taken;
- an mbarrier (PTX): a phase completes when `count` arrivals and the expected
  transaction bytes are in; `try_wait.parity p` passes while the completed phases'
  parity differs from p; TMA copies deliver their bytes when issued;
- a named barrier: a phase completes when `threads` threads arrived.

Each party runs as far as it can, in turn, until all finished or none can move. Then
the wait-for graph of the blocked parties gives the cycle (or the finished party) that
makes the kernel hang, reported at the op of a blocked party; leftovers at the end (a
turn passed and never taken, a barrier phase some arrived at and that never completes)
are reported at the op that left them.
"""

from __future__ import annotations

from collections import defaultdict

from wsdialects.diagnostics import counted, numbered
from wsdialects.sync import Violation, at, name_of
from wsdialects.sync.skeleton import SYNC_OPS, Ev, Party, Trace


class _Slot:
    __slots__ = ("pos", "got", "rel", "ev")

    def __init__(self):
        self.pos, self.got, self.rel, self.ev = None, set(), set(), None


class _MBarrier:
    __slots__ = ("count", "pending", "tx", "completed", "arrived", "last", "clock", "clocks")

    def __init__(self, count: int, n: int):
        self.count = self.pending = count
        self.tx = self.completed = 0
        self.arrived: dict[tuple, Ev] = {}
        self.last: Ev | None = None
        self.clock = [0] * n  # what the arrivals of the current phase have done
        self.clocks: dict[int, list[int]] = {}  # completed phase -> its clock


class _Named:
    __slots__ = ("threads", "arrived", "completed", "parties", "last", "clock", "clocks")

    def __init__(self, threads: int, n: int):
        self.threads, self.arrived, self.completed = threads, 0, 0
        self.parties: dict[Party, Ev] = {}
        self.last: Ev | None = None
        self.clock = [0] * n
        self.clocks: dict[int, list[int]] = {}


def _join(a: list[int], b: list[int]) -> None:
    for i, x in enumerate(b):
        if x > a[i]:
            a[i] = x


def _names(parties) -> str:
    return ", ".join(p.name for p in sorted(parties, key=lambda p: p.index)) or "none"


def acts_of(ops) -> list[tuple]:
    """(kind, ring / mbarrier array op or named barrier id, barrier threads) of every op of
    `ops` (a party's ops, in walk order) that puts, releases, arrives, waits or meets at a
    named barrier."""
    found = []
    for o in ops:
        kind = SYNC_OPS.get(o.name)
        if kind in ("put", "consumed", "arrive", "arrive_tx", "wait"):
            found.append((kind, o.operands[0].owner if o.operands else None, None))
        elif kind in ("bar_sync", "bar_arrive"):
            found.append((kind, o.id.value.data, None if o.threads is None else o.threads.value.data))
    return found


class Simulation:
    """One trace's parties run against each other: `run()` raises `Violation` at the first
    defect (a deadlock, a race on a shared-memory slot, an overrun or leftover phase)."""

    def __init__(self, trace: Trace, acts: dict | None = None):
        """`acts`: `acts_of` each party's ops by id of the party's op, shared by the traces of
        one kernel (made here where missing)."""
        self.trace = trace
        self.parties = trace.parties
        self.ptr = {p: 0 for p in self.parties}
        self.slots: dict[tuple, _Slot] = defaultdict(_Slot)
        self.depths: dict[int, int] = {}  # id(ring) -> its depth
        self.producers: dict = defaultdict(set)
        self.releasers: dict = defaultdict(set)
        self.group_party: dict[tuple[int, int], Party] = {}
        self.arrivers: dict = defaultdict(set)
        self.participants: dict = defaultdict(set)
        self.waiters: dict = defaultdict(set)
        acts = {} if acts is None else acts
        roles = {"put": self.producers, "consumed": self.releasers, "arrive": self.arrivers,
                 "arrive_tx": self.arrivers, "wait": self.waiters}
        for p in self.parties:  # who acts on what, from the IR (a party may skip it in this trace)
            found = acts.get(id(p.op))
            if found is None:
                found = acts[id(p.op)] = acts_of(p.op.walk())
            for kind, obj, threads in found:
                if kind in roles:
                    roles[kind][obj].add(p)
                elif threads is None or threads != p.threads:  # a named barrier
                    self.participants[obj].add(p)
            for ev in p.events:
                if ev.kind in ("gather", "turn_wait", "turn_pass"):
                    self.group_party.setdefault((ev.obj, ev.arg), p)
        self.meetings: dict[tuple[int, int], dict[int, Party]] = defaultdict(dict)
        self.gather_clocks: dict[tuple[int, int], dict[Party, list[int]]] = {}  # clocks at arrival
        self.gathered: dict[Party, int] = defaultdict(int)
        self.passed: dict[tuple[int, int], int] = defaultdict(int)
        self.taken: dict[tuple[int, int], int] = defaultdict(int)
        self.last_pass: dict[tuple[int, int], Ev] = {}
        self.mbars: dict[tuple, _MBarrier] = {}
        self.named: dict[int, _Named] = {}
        self.sync_phase: dict[Party, int] = {}
        self.holder: dict[tuple[int, int], Ev] = {}  # group -> the turn_wait where it took the turn it holds
        self.waits: dict[tuple, list[Ev]] = defaultdict(list)  # (party, array, index) -> its passed waits
        self.acquired: dict[tuple, int] = defaultdict(int)  # ... -> how many completed phases they acquired
        # Happens-before between the parties (vector clocks through mbarrier phases and named barriers),
        # to find shared-memory slot accesses no barrier orders.
        self.vc = {p: [0] * len(self.parties) for p in self.parties}
        self.last_write: dict[tuple, tuple[Party, list[int], Ev]] = {}
        self.reads: dict[tuple, dict[Party, tuple[list[int], Ev]]] = defaultdict(dict)

    @staticmethod
    def _own(p: Party, ev: Ev) -> bool:
        """A named barrier of the party's own threads (warp_group.barrier): always met."""
        return ev.arg == p.threads

    # ------------------------------------------------------------------ one step

    def step(self, p: Party, ev: Ev) -> bool:
        """Execute `ev` if it can go now (True); False if `p` must wait."""
        self.vc[p][p.index] += 1
        return self._STEP[ev.kind](self, p, ev)

    # What `step` does for an event of each kind (`_STEP`).

    def _step_access(self, p: Party, ev: Ev) -> bool:
        if ev.obj is not None and ev.pos is not None:
            self._access(p, ev, (ev.obj, ev.pos))
        return True

    def _step_turn_wait(self, p: Party, ev: Ev) -> bool:
        key = (ev.obj, ev.arg)
        if self.passed[key] <= self.taken[key]:
            return False
        self.taken[key] += 1
        self.holder[key] = ev
        return True

    def _step_turn_pass(self, p: Party, ev: Ev) -> bool:
        self.holder.pop((ev.obj, ev.arg), None)
        key = (ev.obj, (ev.arg + 1) % ev.obj)
        self.passed[key] += 1
        self.last_pass[key] = ev
        return True

    def _step_named(self, p: Party, ev: Ev) -> bool:
        return self._own(p, ev) or self._named(p, ev)

    def _step_wait(self, p: Party, ev: Ev) -> bool:
        if ev.pos is None or ev.obj is None:
            return True
        bar = self._mbar(ev)
        if ev.arg is not None and (bar.completed & 1) == ev.arg:
            return False
        self.waits[(p, ev.obj, ev.pos)].append(ev)
        if bar.completed:  # it acquires the phase that completed last (not a fresh barrier's "previous" one)
            self.acquired[(p, ev.obj, ev.pos)] += 1
            _join(self.vc[p], bar.clocks[bar.completed - 1])
        return True

    def _step_tma(self, p: Party, ev: Ev) -> bool:
        if ev.pos is None or ev.obj is None:
            return True
        bar = self._mbar(ev)
        if ev.slot is not None and ev.slot[0] is not None and ev.slot[1] is not None:
            self._access(p, Ev("write", ev.op), ev.slot)
        _join(bar.clock, self.vc[p])  # the copy lands before the phase completes
        bar.tx -= ev.arg
        self._complete(bar, ev)
        return True

    def _step_arrive(self, p: Party, ev: Ev) -> bool:  # arrive, arrive_tx
        if ev.pos is None or ev.obj is None:
            return True
        bar = self._mbar(ev)
        if ev.kind == "arrive_tx":
            bar.tx += ev.arg
        self._arrive(p, ev, bar, 1 if ev.kind == "arrive_tx" else ev.arg)
        return True

    def _slot(self, ev: Ev) -> tuple[int, _Slot]:
        depth = self.depths.get(id(ev.obj))
        if depth is None:
            depth = self.depths[id(ev.obj)] = ev.obj.results[0].type.depth.data
        s = ev.pos % depth
        return s, self.slots[(ev.obj, s)]

    def _put(self, p: Party, ev: Ev) -> bool:
        if ev.pos is None or ev.obj is None:
            return True  # (unknown: not followed)
        _, slot = self._slot(ev)
        if slot.pos is not None:
            return False
        slot.pos, slot.got, slot.rel, slot.ev = ev.pos, set(), set(), ev
        return True

    def _get(self, p: Party, ev: Ev) -> bool:
        if ev.pos is None or ev.obj is None:
            return True  # (unknown: not followed)
        _, slot = self._slot(ev)
        if slot.pos != ev.pos or p in slot.got:
            return False
        slot.got.add(p)
        return True

    def _consumed(self, p: Party, ev: Ev) -> bool:
        if ev.pos is None or ev.obj is None:
            return True  # (unknown: not followed)
        s, slot = self._slot(ev)
        if slot.pos != ev.pos or p not in slot.got or p in slot.rel:
            raise Violation(ev.op, f"{p.name} releases position {ev.pos} of ring {name_of(ev.obj)} without holding "
                                   f"it (slot {s} holds position {slot.pos})")
        slot.rel.add(p)
        if len(slot.rel) >= ev.obj.num_consumers:
            slot.pos = None
        return True

    def _gather(self, p: Party, ev: Ev) -> bool:
        """A team's `warp_group.gather`: every group waits until all have arrived; group 0
        (which stores the whole tile: `bar.sync` in the lowering, the others `bar.arrive`)
        then has everything the others did before arriving ordered before it."""
        key = (ev.obj, self.gathered[p])
        meeting = self.meetings[key]
        other = meeting.setdefault(ev.arg, p)
        if other is not p:
            raise Violation(ev.op, f"{p.name} and {other.name} both gather as group {ev.arg} of {ev.obj}")
        arrived = self.gather_clocks.setdefault(key, {})
        arrived.setdefault(p, list(self.vc[p]))
        if len(meeting) < ev.obj:
            return False
        if ev.arg == 0:
            for snap in arrived.values():
                _join(self.vc[p], snap)
        self.gathered[p] += 1
        return True

    def _mbar(self, ev: Ev) -> _MBarrier:
        key = (ev.obj, ev.pos)
        bar = self.mbars.get(key)
        if bar is None:
            init = self.trace.inits.get(key)
            if init is None:
                raise Violation(ev.op, f"'{ev.op.name}' uses {name_of(ev.obj)}[{ev.pos}], which is never "
                                       "initialized (nvgpu.mbarrier.init)")
            bar = self.mbars[key] = _MBarrier(init[0], len(self.parties))
        return bar

    def _arrive(self, p: Party, ev: Ev, bar: _MBarrier, n: int) -> None:
        who = (p, ev.kind)
        prev = bar.arrived.get(who)
        if prev is not None:
            where = f"{name_of(ev.obj)}[{ev.pos}]"
            raise Violation(ev.op, f"{p.name} arrives on {where} twice in one phase (at {at(prev.op)} and here): "
                                   f"the phase expects one arrival of each partition that arrives on it")
        if n > bar.pending:
            where = f"{name_of(ev.obj)}[{ev.pos}]"
            raise Violation(ev.op, f"{p.name} arrives on {where} with {counted(n, 'arrival')} when its phase "
                                   f"expects only {bar.pending} more (count {bar.count})")
        bar.arrived[who] = ev
        bar.last = ev
        bar.pending -= n
        _join(bar.clock, self.vc[p])
        self._complete(bar, ev)

    def _complete(self, bar: _MBarrier, ev: Ev) -> None:
        if bar.pending == 0 and bar.tx == 0:
            # A phase completes only after every party that waits on the barrier waited for the
            # one before (its signallers wait for the counterpart barrier first): else it overruns.
            for q in sorted(self.waiters[ev.obj], key=lambda q: q.index):  # the first by index, on any run
                passed = self.acquired[(q, ev.obj, ev.pos)]
                if bar.completed > passed:
                    raise Violation(ev.op, f"this completes phase #{bar.completed} of {name_of(ev.obj)}[{ev.pos}] "
                                           f"while {q.name} has waited for {passed} of its phases: the phases "
                                           "overrun (an extra arrival, or the signalling partition does not wait "
                                           "for the slot to be released)")
            bar.clocks[bar.completed] = bar.clock
            bar.clock = [0] * len(bar.clock)
            bar.completed += 1
            bar.pending = bar.count
            bar.arrived = {}

    def _access(self, p: Party, ev: Ev, slot: tuple) -> None:
        """A read or write of a shared-memory slot: every earlier access of another party
        that conflicts with it must happen before it (through barriers)."""
        vc = self.vc[p]
        earlier = [self.last_write[slot]] if slot in self.last_write else []
        if ev.kind == "write":
            earlier += [(q, snap, e) for q, (snap, e) in self.reads[slot].items()]
        for q, snap, e in earlier:
            if q is not p and snap[q.index] > vc[q.index]:
                what, verb = f"{name_of(slot[0])}[{slot[1]}]", "reads" if ev.kind == "read" else "writes"
                raise Violation(ev.op, f"{p.name} {verb} {what} here, but no barrier orders this after "
                                       f"{q.name}'s {'read' if e.kind == 'read' else 'write'} of it at {at(e.op)}: "
                                       "a data race (a wait or an arrival is missing)")
        if ev.kind == "write":
            self.last_write[slot] = (p, list(vc), ev)
            self.reads[slot] = {}
        else:
            self.reads[slot][p] = (list(vc), ev)

    def _named(self, p: Party, ev: Ev) -> bool:
        bar = self.named.get(ev.obj)
        if bar is None:
            bar = self.named[ev.obj] = _Named(ev.arg, len(self.parties))
        if bar.threads != ev.arg:
            raise Violation(ev.op, f"named barrier {ev.obj} is used with {ev.arg} threads here and with "
                                   f"{bar.threads} at {at(bar.last.op)}")
        if ev.kind == "bar_sync" and p in self.sync_phase:  # arrived already: waiting for the phase
            if bar.completed > self.sync_phase[p]:
                _join(self.vc[p], bar.clocks[self.sync_phase.pop(p)])
                return True
            return False
        prev = bar.parties.get(p)
        if prev is not None:
            raise Violation(ev.op, f"{p.name} reaches named barrier {ev.obj} twice in one phase (at {at(prev.op)} "
                                   "and here)")
        bar.arrived += p.threads
        if bar.arrived > bar.threads:
            raise Violation(ev.op, f"{bar.arrived} threads arrive at named barrier {ev.obj}, which counts "
                                   f"{bar.threads} ({_names(bar.parties)} and {p.name})")
        bar.parties[p] = ev
        bar.last = ev
        _join(bar.clock, self.vc[p])
        phase = bar.completed
        if bar.arrived == bar.threads:
            bar.clocks[phase] = bar.clock
            bar.clock = [0] * len(bar.clock)
            bar.completed, bar.arrived, bar.parties = bar.completed + 1, 0, {}
        if ev.kind == "bar_sync" and bar.completed > phase:
            _join(self.vc[p], bar.clocks[phase])
        if ev.kind == "bar_arrive" or bar.completed > phase:
            return True
        self.sync_phase[p] = phase
        return False

    _STEP = {"read": _step_access, "write": _step_access, "put": _put, "get": _get, "consumed": _consumed,
             "gather": _gather, "turn_wait": _step_turn_wait, "turn_pass": _step_turn_pass,
             "bar_sync": _step_named, "bar_arrive": _step_named, "wait": _step_wait, "tma": _step_tma,
             "arrive": _step_arrive, "arrive_tx": _step_arrive}

    # ------------------------------------------------------------------ the run

    def run(self) -> None:
        moved = True
        while moved:
            moved = False
            for p in self.parties:
                events, i = p.events, self.ptr[p]
                while i < len(events) and self.step(p, events[i]):
                    i += 1
                    moved = True
                self.ptr[p] = i
        blocked = [p for p in self.parties if self.ptr[p] < len(p.events)]
        if blocked:
            raise self.deadlock(blocked)
        self.leftovers()

    def why(self, p: Party, ev: Ev) -> tuple[str, set[Party]]:
        """What `p` waits for at `ev`, and who could provide it; `self.culprit` is set to
        an op that explains it better than `ev` when there is one."""
        k = ev.kind
        if k in ("put", "get"):
            r = name_of(ev.obj)
            s, slot = self._slot(ev)
            holders = self.releasers[ev.obj] - slot.rel
            if k == "put":
                return (f"slot {s} of ring {r} to be empty (it holds position {slot.pos}, released so far by "
                        f"{_names(slot.rel)})", holders)
            if slot.pos is None:
                return f"position {ev.pos} of ring {r} to be put", set(self.producers[ev.obj])
            return (f"position {ev.pos} of ring {r} (slot {s} still holds position {slot.pos})",
                    holders | self.producers[ev.obj])
        if k == "gather":
            meeting = self.meetings[(ev.obj, self.gathered[p])]
            missing = set(range(ev.obj)) - set(meeting)
            return (f"gather #{self.gathered[p]} of {ev.obj} groups ({numbered('group', sorted(missing))} missing)",
                    {q for g in missing if (q := self.group_party.get((ev.obj, g))) is not None})
        if k == "turn_wait":
            prev = (ev.arg - 1) % ev.obj
            q = self.group_party.get((ev.obj, prev))
            held = self.holder.get((ev.obj, prev))
            took = ""
            if held is not None:
                self.culprit[p] = held.op
                took = f" (group {prev} took the turn at {at(held.op)} and never passed it on)"
            return f"the turn of group {ev.arg} of {ev.obj}, passed by group {prev}{took}", {q} if q else set()
        if k == "wait":
            bar = self._mbar(ev)
            came = {q for q, _ in bar.arrived}
            return (f"phase parity {ev.arg} of {name_of(ev.obj)}[{ev.pos}] "
                    f"({counted(bar.completed, 'phase')} completed; "
                    f"{bar.pending} of {bar.count} arrivals and {bar.tx} bytes outstanding)",
                    self.arrivers[ev.obj] - came)
        bar = self.named[ev.obj]
        return (f"named barrier {ev.obj} ({bar.arrived} of {bar.threads} threads arrived)",
                self.participants[ev.obj] - set(bar.parties))

    def deadlock(self, blocked: list[Party]) -> Violation:
        self.culprit: dict[Party, object] = {}
        waits = {p: self.why(p, p.events[self.ptr[p]]) for p in blocked}
        edges = {p: sorted((q for q in w if q in waits), key=lambda q: q.index) for p, (_, w) in waits.items()}
        for p in blocked:  # a group that waits for another turn while it holds one
            ev = p.events[self.ptr[p]]
            held = self.holder.get((ev.obj, ev.arg)) if ev.kind == "turn_wait" else None
            if held is not None:
                return Violation(ev.op, f"deadlock: group {ev.arg} of {ev.obj} ({p.name}) waits here for a turn "
                                        f"while it holds the one it took at {at(held.op)} (a turn_pass is missing, or "
                                        "this turn_wait is repeated)")
        for p in blocked:  # a party that waits for nobody who could still move
            if not edges[p]:
                desc, w = waits[p]
                done = f": {_names(w)} finished without providing it" if w else ": no partition provides it"
                here = p.events[self.ptr[p]].op
                return Violation(self.culprit.get(p, here), f"deadlock: {p.name} waits at {at(here)} forever for "
                                                            f"{desc}{done}")
        cycle, seen, cur = [], {}, blocked[0]
        while cur not in seen:
            seen[cur] = len(cycle)
            cycle.append(cur)
            cur = edges[cur][0]
        cycle = cycle[seen[cur]:]
        lead = min(cycle, key=lambda q: q.index)
        i = cycle.index(lead)
        cycle = cycle[i:] + cycle[:i]
        parts = [f"{lead.name} waits here for {waits[lead][0]}"]
        parts += [f"{q.name} waits at {at(q.events[self.ptr[q]].op)} for {waits[q][0]}" for q in cycle[1:]]
        return Violation(lead.events[self.ptr[lead]].op, "deadlock: " + "; ".join(parts))

    def _repeated_turn_op(self, n: int, g: int, kind: str) -> Ev | None:
        """The first of group g's turn ops of `kind` that follows another one of that kind with
        no turn op of the other kind between (a turn passed twice, a turn waited for twice):
        where an unbalanced turn most likely comes from."""
        party = self.group_party.get((n, g))
        last = None
        for ev in party.events if party is not None else ():
            if ev.kind in ("turn_wait", "turn_pass") and ev.obj == n:
                if ev.kind == kind and last == kind:
                    return ev
                last = ev.kind
        return None

    def leftovers(self) -> None:
        for (n, g), ev in self.last_pass.items():
            if self.passed[(n, g)] != self.taken[(n, g)]:
                ev = self._repeated_turn_op(n, (g - 1) % n, "turn_pass") or ev
                raise Violation(ev.op, f"a turn passed to group {g} of {n} is never taken (group {(g - 1) % n} "
                                       f"passes {self.passed[(n, g)]} turns, group {g} takes {self.taken[(n, g)]}; "
                                       "this turn_pass is the first that follows another without a turn_wait between)"
                                if ev is not self.last_pass[(n, g)] else
                                f"the turn passed here to group {g} of {n} is never taken (no turn_wait of that "
                                "group is left to take it)")
        for (obj, s), slot in self.slots.items():
            if slot.pos is not None:
                raise Violation(slot.ev.op, f"position {slot.pos} of ring {name_of(obj)} put here is never released "
                                            f"by every consumer (released by {_names(slot.rel)})")
        for (obj, i), bar in self.mbars.items():
            if bar.pending != bar.count or bar.tx:
                raise Violation(bar.last.op, f"the phase of {name_of(obj)}[{i}] this arrival belongs to never "
                                             f"completes ({bar.count - bar.pending} of {bar.count} arrivals, "
                                             f"{bar.tx} bytes outstanding; {_names(self.arrivers[obj] - {q for q, _ in bar.arrived})} never arrive)")
        for (p, obj, i), evs in self.waits.items():
            done = self.mbars[(obj, i)].completed
            if len(evs) != done:
                raise Violation(evs[-1].op, f"{p.name} waits {counted(len(evs), 'time')} on {name_of(obj)}[{i}], whose "
                                            f"phases complete {counted(done, 'time')}: one wait per phase "
                                            "(a wait is missing or repeated)")
        for bid, bar in self.named.items():
            if bar.arrived:
                raise Violation(bar.last.op, f"named barrier {bid}: {bar.arrived} of {bar.threads} threads arrive in "
                                             f"a phase that never completes ({_names(bar.parties)} arrived)")
