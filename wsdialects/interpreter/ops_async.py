"""Semantics of `aref` and `warp_group`: partitions run as coroutines under the
`Scheduler`; aref ops block per `wsdialects.aref.semantics`."""

from __future__ import annotations

from itertools import compress, repeat

import numpy as np

from wsdialects.aref.semantics import Released, Ring
from wsdialects.interpreter.core import InFlight, impl, where
from wsdialects.interpreter.partitions import Scheduler
from wsdialects.interpreter.values import InterpretError, mma_product


class _Solo:
    """The scheduler of code outside any warp_group: nobody else can unblock it."""

    def block_until(self, ready, desc):
        if not ready():
            raise InterpretError(f"deadlock: outside any warp_group, waiting for {desc() if callable(desc) else desc}")

    def yield_point(self):
        pass


_SOLO = _Solo()


def _sched(frame):
    return frame.scheduler or _SOLO


def _ring_name(op) -> str:
    hint = op.results[0].name_hint if op.results else None
    return f"%{hint}" if hint else f"at {where(op).rstrip(': ') or op.name}"


@impl("aref.create")
def _create(frame, op, _):
    t = op.ring.type
    return [Ring(_ring_name(op), t.depth.data, op.num_consumers)]


@impl("aref.put")
def _put(frame, op, a):
    ring, pos, *values = a
    s = _sched(frame)
    s.yield_point()
    ring.put(s, int(pos), tuple(values))
    return []


@impl("aref.get")
def _get(frame, op, a):
    ring, pos = a
    s = _sched(frame)
    s.yield_point()
    return list(ring.get(s, frame.partition, int(pos)))


@impl("aref.consumed")
def _consumed(frame, op, _):
    ring_value, position = op._operands  # noqa: SLF001 - (op.ring, op.position)
    ring, pos = frame.read(ring_value, op), int(frame.read(position, op))
    _sched(frame).yield_point()
    try:
        values = ring.consumed(pos, frame.partition)
    except InterpretError as e:
        raise InterpretError(f"{where(op)}{e}") from None
    for flight in frame.inflight:
        if any(x is v or getattr(x, "base", None) is v for x in flight.inputs for v in values):
            raise InterpretError(
                f"{where(op)}aref.consumed releases {ring.name} slot {pos % ring.depth} (position {pos}) "
                "while an mma.async_dot reading it is still in flight"
            )
    # Poison the borrowed tiles: a later read is a use after release (a tile, or a view of one).
    poison = Released(ring.name, pos % ring.depth, pos)
    borrowed = {id(v) for v in values}  # (they are alive: ids stand for the tiles)
    env = frame.env
    frame.guarded = True
    keys, held = list(env), list(env.values())
    hit = borrowed.__contains__  # the values, or views of them (by their `base`), searched in C
    poisoned = list(compress(keys, map(hit, map(id, held))))
    poisoned += compress(keys, map(hit, map(id, map(getattr, held, repeat("base"), repeat(None)))))
    for key in poisoned:
        env[key] = poison
    return []


@impl("warp_group.region")
def _region(frame, op, _):
    if frame.scheduler is not None:
        raise InterpretError(f"{where(op)}nested warp_group.region is not supported")
    seed = None if frame.seed is None else hash((frame.seed, frame.pid)) & 0xFFFFFFFF
    sched = Scheduler(seed)
    bodies = []
    for part in op.partitions:
        sub = frame.fork(part.pid, sched)
        bodies.append((f"partition {part.pid} ({part.role_name})",
                       lambda sub=sub, part=part: sub.run_block(part.body.block, [])))
    sched.run(bodies)
    return []


@impl("mma.async_dot")
def _async_dot(frame, op, a):
    x, y, acc = a
    if isinstance(x, InFlight) or isinstance(y, InFlight):
        raise InterpretError(f"{where(op)}mma.async_dot reads an in-flight result as an a or b operand")
    acc_value = acc.value if isinstance(acc, InFlight) else acc
    value = mma_product(x, y, acc_value)
    flight = InFlight(value, (x, y))
    frame.inflight.append(flight)
    frame.guarded = True
    return [flight]


@impl("mma.wait")
def _wait(frame, op, a):
    keep = op.num_pending
    retired = frame.inflight[: max(len(frame.inflight) - keep, 0)]
    frame.inflight = frame.inflight[len(retired):]
    still = set(map(id, frame.inflight))  # a dot an earlier wait retired is done too
    return [v.value if isinstance(v, InFlight) and id(v) not in still else v for v in a]


@impl("warp_group.barrier")
def _barrier(frame, op, a):
    # One coroutine runs a whole partition, so its warps are always together.
    return []


@impl("warp_group.share")
def _share(frame, op, a):
    g, n, axis = op.group.value.data, op.groups.value.data, op.axis.value.data
    x = np.asarray(a[0])
    size = x.shape[axis] // n
    return [np.take(x, range(g * size, (g + 1) * size), axis=axis)]


@impl("warp_group.gather")
def _gather(frame, op, a):
    """The k-th gather of every cooperating group meets the k-th of the others."""
    g, n, axis = op.group.value.data, op.groups.value.data, op.axis.value.data
    part = np.asarray(a[0])
    if frame.scheduler is None:
        if n != 1:
            raise InterpretError(f"{where(op)}warp_group.gather of {n} groups outside a warp_group.region")
        return [part]
    s = frame.scheduler
    if not hasattr(s, "gathers"):
        s.gathers, s.gather_count = {}, {}
    k = s.gather_count.get(frame.partition, 0)
    s.gather_count[frame.partition] = k + 1
    meeting = s.gathers.setdefault(k, {})
    if g in meeting:
        raise InterpretError(f"{where(op)}two partitions gather as group {g} of {n} (gather #{k})")
    meeting[g] = part
    s.yield_point()
    s.block_until(lambda: len(meeting) == n, f"warp_group.gather #{k} ({len(meeting)} of {n} groups arrived)")
    parts = [meeting[i] for i in range(n)]
    if any(p.shape != part.shape for p in parts):
        raise InterpretError(f"{where(op)}warp_group.gather #{k}: the groups' slices differ in shape")
    return [np.concatenate(parts, axis=axis)]


def _turns(frame, op) -> dict[int, list[int]]:
    """The team's turns: group -> [turns passed to it, turns it has taken]."""
    s = frame.scheduler
    if s is None:
        raise InterpretError(f"{where(op)}{op.name} outside a warp_group.region")
    if not hasattr(s, "turns"):
        s.turns = {}
    return s.turns


@impl("warp_group.turn_wait")
def _turn_wait(frame, op, a):
    g, n = op.g, op.n
    t = _turns(frame, op).setdefault(g, [0, 0])
    frame.scheduler.yield_point()
    frame.scheduler.block_until(lambda: t[0] > t[1], f"warp_group.turn_wait {g} of {n} (turn #{t[1]} of group "
                                                     f"{g}, to be passed by group {(g - 1) % n})")
    t[1] += 1
    return []


@impl("warp_group.turn_pass")
def _turn_pass(frame, op, a):
    g, n = op.g, op.n
    _turns(frame, op).setdefault((g + 1) % n, [0, 0])[0] += 1
    frame.scheduler.yield_point()
    return []
