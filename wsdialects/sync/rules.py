"""What must hold of one warp-specialized region, checked before its traces are run
against each other (`simulate`), so that a defect is reported at the op that has it:

statically (from the IR of a `warp_group.region` or `nvgpu.wg.dispatch`):
- a ring is put into by one partition, and every partition that gets from it also
  releases it (and the other way round); its `consumers` is the number of partitions
  that release it;
- a cooperative group (`share` / `gather` / turns, `g of G`) is one partition, and a
  partition is one group;
- an mbarrier's arrival count is what a phase gets: each partition that arrives on it
  once per phase, with its warps (`per_warp`) or one arrival; a named barrier counts
  the threads of the partitions that meet there;

per trace (one partition's executed ops for sampled inputs):
- each partition puts / gets / releases the positions of a ring in increasing order,
  each once; every position put is got and then released by each consumer partition,
  and nothing else is;
- each group of a team reaches the same number of gathers (turns are counted by the
  simulation: every turn passed is taken, and no group waits for one that never comes).
"""

from __future__ import annotations

from collections import defaultdict

from xdsl.ir import Operation

from wsdialects.diagnostics import counted, numbered
from wsdialects.nvgpu.barriers import arrivals
from wsdialects.sync import Violation, at, name_of
from wsdialects.sync.plan import AREF_OPS, SYNC_OPS
from wsdialects.sync.skeleton import Party, Trace, party_warps, region_parties

VERB = {"put": "puts", "get": "gets", "consumed": "releases"}


def _first(ops_by_party: dict[Party, list[Operation]], party: Party) -> Operation:
    return ops_by_party[party][0]


def check_static(container: Operation) -> dict[Operation, list[Operation]]:
    """The static rules of one region / dispatch. They look at each party's synchronizing ops and
    `warp_group.share`s only: `ops`, gathered in one walk of each party, in walk order, and
    returned by the party's op (the simulation's `acts_of` needs no other)."""
    parties = region_parties(container)
    ops = {p: [o for o in p.op.walk() if o.name in SYNC_OPS or o.name == "warp_group.share"] for p in parties}
    _check_rings(parties, ops)
    _check_groups(parties, ops)
    if container.name == "nvgpu.wg.dispatch":
        _check_mbarrier_counts(container, parties, ops)
        _check_named_barriers(parties, ops)
    return {p.op: ops[p] for p in parties}


def _check_rings(parties: list[Party], ops: dict[Party, list[Operation]]) -> None:
    uses: dict[Operation, dict[str, dict[Party, list[Operation]]]] = defaultdict(
        lambda: {k: defaultdict(list) for k in AREF_OPS.values()})
    for p in parties:
        for o in ops[p]:
            if o.name in AREF_OPS and isinstance(o.operands[0].owner, Operation) \
                    and o.operands[0].owner.name == "aref.create":
                uses[o.operands[0].owner][AREF_OPS[o.name]][p].append(o)
    for ring, by in uses.items():
        r = name_of(ring)
        putters, getters, releasers = (sorted(by[k], key=lambda p: p.index) for k in ("put", "get", "consumed"))
        if len(putters) > 1:
            raise Violation(_first(by["put"], putters[1]),
                            f"ring {r} is put into by {putters[0].name} and by {putters[1].name}: a ring has one "
                            "producing partition")
        if not putters:
            any_op = next(iter(by["get"].values() or by["consumed"].values()))[0]
            raise Violation(any_op, f"'{any_op.name}' on ring {r}, which no partition puts into")
        if not getters:
            raise Violation(_first(by["put"], putters[0]), f"{putters[0].name} puts into ring {r}, which no "
                                                            "partition gets from")
        for p in getters:
            if p in putters and len(getters) > 1:  # alone, it reads its own copies (ws-producer-transpose)
                raise Violation(_first(by["get"], p), f"{p.name} both puts into and gets from ring {r}, "
                                                       "which other partitions also get from")
            if p not in releasers:
                raise Violation(_first(by["get"], p), f"{p.name} gets from ring {r} but never releases a slot of "
                                                       "it (no aref.consumed)")
        for p in releasers:
            if p not in getters:
                raise Violation(_first(by["consumed"], p), f"{p.name} releases slots of ring {r}, which it never "
                                                            "gets from")
        if ring.num_consumers != len(releasers):
            raise Violation(ring, f"ring {r} has consumers = {ring.num_consumers}, but it is released by "
                                  f"{counted(len(releasers), 'partition')}: {', '.join(p.name for p in releasers)}")


def _check_groups(parties: list[Party], ops: dict[Party, list[Operation]]) -> None:
    owner: dict[tuple[int, int], tuple[Party, Operation]] = {}
    for p in parties:
        mine: tuple[int, int] | None = None
        for o in ops[p]:
            if o.name in ("warp_group.share", "warp_group.gather"):
                g = (o.group.value.data, o.groups.value.data)
            elif o.name in ("warp_group.turn_wait", "warp_group.turn_pass"):
                g = (o.g, o.n)
            else:
                continue
            if mine is not None and g != mine:
                raise Violation(o, f"{p.name} acts as group {g[0]} of {g[1]} here and as group {mine[0]} of "
                                   f"{mine[1]} elsewhere: a partition is one cooperative group")
            mine = g
            if o.name != "warp_group.share":
                other = owner.setdefault(g, (p, o))
                if other[0] is not p:
                    raise Violation(o, f"{p.name} and {other[0].name} (at {at(other[1])}) both act as group {g[0]} "
                                       f"of {g[1]}")


def _arrivals(parties: list[Party], ops: dict[Party, list[Operation]]
              ) -> dict[Operation, dict[tuple[Party, str], tuple[int, Operation]]]:
    """mbarrier array -> (party, kind) -> (arrivals per phase, an op)."""
    out: dict = defaultdict(dict)
    for p in parties:
        for o in ops[p]:
            if o.name == "nvgpu.mbarrier.arrive":
                n = arrivals(o.scope.data, party_warps(o, p))
            elif o.name == "nvgpu.mbarrier.arrive_expect_tx":
                n = 1
            else:
                continue
            arr = o.operands[0].owner
            if isinstance(arr, Operation):
                out[arr].setdefault((p, o.name), (n, o))
    return out


def _check_mbarrier_counts(container: Operation, parties: list[Party], ops: dict[Party, list[Operation]]) -> None:
    arrivals = _arrivals(parties, ops)
    block = container.parent_block()
    inits = [o for o in block.ops if o.name == "nvgpu.mbarrier.init"] if block is not None else []
    if inits:
        between = list(_ops_between(inits[-1], container))
        if not any(o.name == "nvgpu.fence.mbarrier_init" for o in between) or not any(
                o.name == "nvvm.barrier" and o.id.value.data == 0 for o in between):
            raise Violation(inits[-1], "the mbarrier initializations must be fenced (nvgpu.fence.mbarrier_init) and "
                                       "followed by a CTA barrier (nvvm.barrier 0) before the warp groups start")
    for o in block.ops if block is not None else ():
        if o.name != "nvgpu.mbarrier.init" or o.operands[0].owner not in arrivals:
            continue
        by = arrivals[o.operands[0].owner]
        want = sum(n for n, _ in by.values())
        if o.count.value.data != want:
            who = "; ".join(f"{n} from {p.name} ({k.split('.')[-1]} at {at(op)})"
                            for (p, k), (n, op) in sorted(by.items(), key=lambda kv: kv[0][0].index))
            raise Violation(o, f"{name_of(o.operands[0].owner)} expects {o.count.value.data} arrivals per phase, "
                               f"but each phase gets {want}: {who}")


def _ops_between(a: Operation, b: Operation):
    cur = a.next_op
    while cur is not None and cur is not b:
        yield cur
        cur = cur.next_op


def _check_named_barriers(parties: list[Party], ops: dict[Party, list[Operation]]) -> None:
    users: dict[int, dict[Party, Operation]] = defaultdict(dict)
    for p in parties:
        for o in ops[p]:
            if o.name in ("nvvm.barrier", "nvvm.barrier_arrive") and o.threads is not None \
                    and o.threads.value.data != p.threads:
                users[o.id.value.data].setdefault(p, o)
    for bid, by in users.items():
        want = sum(p.threads for p in by)
        for p, o in sorted(by.items(), key=lambda kv: kv[0].index):
            if o.threads.value.data != want:
                raise Violation(o, f"named barrier {bid} counts {o.threads.value.data} threads, but "
                                   f"{', '.join(q.name for q in by)} meet there: {want} threads")


# ---------------------------------------------------------------------- traces


def check_trace(trace: Trace) -> None:
    _check_positions(trace)
    _check_phases(trace)
    _check_gathers(trace)


def _check_positions(trace: Trace) -> None:
    seqs: dict[Operation, dict[str, dict[Party, dict[int, object]]]] = defaultdict(
        lambda: {k: defaultdict(dict) for k in VERB})
    index: dict[int, int] = {}  # id(event) -> where it is in its party's events
    for p in trace.parties:
        for i, ev in enumerate(p.events):
            if ev.kind not in VERB or ev.obj is None or ev.pos is None:
                continue
            got = seqs[ev.obj][ev.kind][p]  # (in the order they come: the last is the latest position)
            if ev.pos in got:
                raise Violation(ev.op, f"{p.name} {VERB[ev.kind]} position {ev.pos} of ring {name_of(ev.obj)} a "
                                       f"second time (first at {at(got[ev.pos].op)})")
            if got and ev.pos < (last := next(reversed(got))):
                raise Violation(ev.op, f"{p.name} {VERB[ev.kind]} position {ev.pos} of ring {name_of(ev.obj)} after "
                                       f"position {last}: a partition goes through a ring in order")
            got[ev.pos] = ev
            index[id(ev)] = i
    for ring, by in seqs.items():
        r = name_of(ring)
        puts = {pos: ev for evs in by["put"].values() for pos, ev in evs.items()}
        producer = ", ".join(p.name for p in by["put"]) or "no partition"
        for c in sorted(set(by["get"]) | set(by["consumed"]), key=lambda p: p.index):
            gets, rels = by["get"].get(c, {}), by["consumed"].get(c, {})
            for pos, ev in sorted(gets.items()):
                if pos not in puts:
                    raise Violation(ev.op, f"{c.name} gets position {pos} of ring {r}, which {producer} never puts")
                if pos not in rels:
                    raise Violation(ev.op, f"{c.name} gets position {pos} of ring {r} here and never releases it "
                                           "(no aref.consumed of that position)")
            for pos, ev in sorted(rels.items()):
                if pos not in gets or index[id(ev)] < index[id(gets[pos])]:
                    raise Violation(ev.op, f"{c.name} releases position {pos} of ring {r} without having got it")
            for pos, ev in sorted(puts.items()):
                if pos not in gets:
                    raise Violation(ev.op, f"position {pos} of ring {r} put here is never got by {c.name}")


def _check_phases(trace: Trace) -> None:
    """A party waits for the phases of an mbarrier in turn: the parities it waits for
    alternate, and it starts every barrier of an array with the same parity."""
    for p in trace.parties:
        last: dict[tuple, object] = {}
        first: dict[Operation, object] = {}
        for ev in p.events:
            if ev.kind != "wait" or ev.obj is None or ev.pos is None or ev.arg is None:
                continue
            prev = last.get((ev.obj, ev.pos))
            if prev is not None and prev.arg == ev.arg:
                b = f"{name_of(ev.obj)}[{ev.pos}]"
                raise Violation(ev.op, f"{p.name} waits for parity {ev.arg} of {b} twice in a row (at {at(prev.op)} "
                                       "and here): a wait for the phase between is missing, or this one is repeated")
            if prev is None:
                one = first.setdefault(ev.obj, ev)
                if one.arg != ev.arg:
                    b = f"{name_of(ev.obj)}[{ev.pos}]"
                    raise Violation(ev.op, f"{p.name} first waits on {b} for parity {ev.arg}, but on "
                                           f"{name_of(ev.obj)}[{one.pos}] for parity {one.arg} (at {at(one.op)}): "
                                           "a wait for the first phase is missing")
            last[(ev.obj, ev.pos)] = ev


def _check_gathers(trace: Trace) -> None:
    teams: dict[int, dict[int, tuple[Party, list]]] = defaultdict(dict)
    for p in trace.parties:
        evs = [ev for ev in p.events if ev.kind == "gather"]
        if evs:
            teams[evs[0].obj].setdefault(evs[0].arg, (p, evs))
    for n, groups in teams.items():
        missing = sorted(set(range(n)) - set(groups))
        if missing:
            p, evs = next(iter(groups.values()))
            raise Violation(evs[0].op, f"no partition gathers as {numbered('group', missing)} of {n}: this gather of "
                                       f"{p.name} never completes")
        fewest = min(len(evs) for _, evs in groups.values())
        for g, (p, evs) in sorted(groups.items()):
            if len(evs) > fewest:
                short = next(q for q, e in groups.values() if len(e) == fewest)
                raise Violation(evs[fewest].op, f"{p.name} reaches gather #{fewest} (group {g} of {n}), which "
                                                f"{short.name} never reaches (it gathers {counted(fewest, 'time')})")
