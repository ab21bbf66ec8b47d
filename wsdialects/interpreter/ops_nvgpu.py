"""Semantics of the `nvgpu` and `nvvm` ops at warp-group level, so that kernels after
`ws-lower-aref` / `ws-lower-warp-groups` still run in the interpreter.

mbarriers follow the PTX model: a barrier expects `count` arrivals per phase and a
transaction count; a phase completes when both reach zero, then the next phase
starts (count re-armed). `try_wait.parity p` passes once the phase of parity p has
completed, i.e. while the current phase's parity differs from p (a fresh barrier
counts parity 1 as completed). TMA copies are asynchronous: issuing one reads the
global box, but its bytes land in shared memory (and complete their transaction
on the barrier) only later, when a waiter needs progress or, under a seeded
interleaving, at random points. Fresh shared memory holds NaN (floats) or a bit
pattern (integers), so a read before the data arrived shows in the result, as
does a slot overwritten before its readers are done: a wrong parity, count or
byte total deadlocks or mis-computes.
"""

from __future__ import annotations

import numpy as np

from wsdialects.interpreter.core import IMPLS, IN_FLIGHT_OK, impl, where
from wsdialects.interpreter.ops_async import _sched
from wsdialects.interpreter.ops_tile import _REDUCE, _box, _window
from wsdialects.interpreter.partitions import Scheduler
from wsdialects.interpreter.values import InterpretError, dtype_of
from wsdialects.nvgpu.barriers import arrivals
from wsdialects.nvgpu.dispatch import executing_warps

IN_FLIGHT_OK.update({"nvgpu.wgmma.mma_async", "nvgpu.wgmma.wait_group"})


class Barrier:
    def __init__(self, name: str):
        self.name = name
        self.count = 0  # 0: not initialized
        self.pending = 0
        self.tx = 0
        self.completed = 0  # phases completed so far
        self.copies: list = []  # TMA copies in flight that complete bytes here: (nbytes, land)

    def init(self, count: int) -> None:
        self.count = self.pending = count
        self.tx = self.completed = 0

    def _check(self, what: str) -> None:
        if self.count == 0:
            raise InterpretError(f"{what} on mbarrier {self.name} before nvgpu.mbarrier.init")

    def _maybe_complete(self) -> None:
        if self.pending == 0 and self.tx == 0:
            self.completed += 1
            self.pending = self.count

    def arrive(self, n: int, what: str) -> None:
        self._check(what)
        if n > self.pending:
            raise InterpretError(f"{what}: {n} arrival(s) on mbarrier {self.name}, whose phase expects only "
                                 f"{self.pending} more (arrival count too small for its users)")
        self.pending -= n
        self._maybe_complete()

    def expect_tx(self, nbytes: int) -> None:
        self._check("arrive_expect_tx")
        self.tx += nbytes

    def land_one(self) -> bool:
        if not self.copies:
            return False
        nbytes, land = self.copies.pop(0)
        land()
        self.tx -= nbytes
        self._maybe_complete()
        return True

    def passed(self, parity: int) -> bool:
        return (self.completed & 1) != parity


class Barriers:
    def __init__(self, name: str, num: int):
        self.name = name
        self.bars = [Barrier(f"{name}[{i}]") for i in range(num)]

    def __getitem__(self, i: int) -> Barrier:
        if not 0 <= i < len(self.bars):
            raise InterpretError(f"mbarrier index {i} out of range for {self.name} ({len(self.bars)} barriers)")
        return self.bars[i]


def _name(op) -> str:
    hint = op.results[0].name_hint if op.results else None
    return f"%{hint}" if hint else f"<{op.name} {where(op).rstrip(': ')}>"


def _warps(op) -> int:
    """Warps executing `op` (see `executing_warps`)."""
    if (n := executing_warps(op)) is None:
        raise InterpretError(f"{where(op)}{op.name} per_warp outside any warp group partition")
    return n


# The CTA's barrier groups, kept in the frame's environment (shared by the partitions'
# forked frames) under this key, so that any asynchronous point may land any copy.
_GROUPS = "nvgpu.barrier-groups"


def _progress(frame) -> None:
    """Under a seeded interleaving, TMA copies land at random points, and another
    partition may run."""
    s = _sched(frame)
    rng = getattr(s, "rng", None)
    if rng is not None:
        for group in frame.env.get(_GROUPS, ()):
            for b in group.bars:
                while b.copies and rng.random() < 0.3:
                    b.land_one()
    s.yield_point()


@impl("nvgpu.mbarrier.create")
def _create(frame, op, _):
    group = Barriers(_name(op), op.result.type.num.data)
    frame.env.setdefault(_GROUPS, []).append(group)
    return [group]


@impl("nvgpu.mbarrier.init")
def _init(frame, op, a):
    group, i = a
    group[int(i)].init(op.count.value.data)
    return []


@impl("nvgpu.mbarrier.arrive")
def _arrive(frame, op, a):
    group, i = a
    _progress(frame)
    n = 1 if op.scope.data == "once" else arrivals(op.scope.data, _warps(op))
    try:
        group[int(i)].arrive(n, "nvgpu.mbarrier.arrive")
    except InterpretError as e:
        raise InterpretError(f"{where(op)}{e}") from None
    _progress(frame)  # whoever waited on this phase may run at once
    return []


@impl("nvgpu.mbarrier.arrive_expect_tx")
def _arrive_tx(frame, op, a):
    group, i = a
    _progress(frame)
    bar = group[int(i)]
    try:
        bar.expect_tx(op.bytes.value.data)
        bar.arrive(1, "nvgpu.mbarrier.arrive_expect_tx")
    except InterpretError as e:
        raise InterpretError(f"{where(op)}{e}") from None
    return []


@impl("nvgpu.mbarrier.try_wait.parity")
def _wait(frame, op, a):
    group, i, parity = a
    bar, p = group[int(i)], int(parity) & 1
    _progress(frame)

    def ready() -> bool:
        # Copies land only when the wait needs them, one at a time: data arrives as
        # late as the hardware may deliver it.
        while not bar.passed(p):
            if not bar.land_one():
                return False
        return True

    _sched(frame).block_until(ready, f"mbarrier {bar.name} phase parity {p} "
                                     f"(completed phases {bar.completed}, {bar.pending} arrivals and {bar.tx} "
                                     f"bytes outstanding)")
    return []


@impl("nvgpu.fence.mbarrier_init", "nvgpu.fence.proxy_async", "nvgpu.wgmma.fence", "nvgpu.wgmma.commit_group",
      "nvgpu.setmaxnreg", "nvgpu.tma.store_wait")
def _nothing(frame, op, a):
    # Fences and register budgets have no effect on values here.
    return []


class NamedBarrier:
    """A named barrier between warp-group branches: a phase completes when `threads`
    threads have arrived (`bar.sync` arrives and waits, `bar.arrive` only arrives)."""

    def __init__(self, bid: int, threads: int):
        self.bid, self.threads, self.arrived, self.completed = bid, threads, 0, 0

    def arrive(self, op, n: int) -> int:
        if self.threads != op.threads.value.data:
            raise InterpretError(f"{where(op)}named barrier {self.bid} used with {op.threads.value.data} and "
                                 f"{self.threads} threads")
        phase = self.completed
        self.arrived += n
        if self.arrived > self.threads:
            raise InterpretError(f"{where(op)}named barrier {self.bid}: {self.arrived} threads arrived, the "
                                 f"barrier counts {self.threads}")
        if self.arrived == self.threads:
            self.arrived, self.completed = 0, self.completed + 1
        return phase


def _named(frame, op) -> NamedBarrier | None:
    """The named barrier `op` arrives at, or None when its own branch fills it (one
    coroutine runs all the branch's warps, so such a barrier is always met)."""
    if op.threads is None or frame.scheduler is None or op.threads.value.data == 32 * _warps(op):
        return None
    s = frame.scheduler  # shared by the branches of the dispatch
    if not hasattr(s, "named_barriers"):
        s.named_barriers = {}
    table = s.named_barriers
    bid = op.id.value.data
    return table.setdefault(bid, NamedBarrier(bid, op.threads.value.data))


@impl("nvvm.barrier")
def _bar_sync(frame, op, a):
    bar = _named(frame, op)
    if bar is not None:
        phase = bar.arrive(op, 32 * _warps(op))
        _sched(frame).block_until(lambda: bar.completed > phase, f"named barrier {bar.bid} ({bar.arrived} of "
                                                                 f"{bar.threads} threads arrived)")
    return []


@impl("nvvm.barrier_arrive")
def _bar_arrive(frame, op, a):
    bar = _named(frame, op)
    if bar is not None:
        bar.arrive(op, 32 * _warps(op))
    _progress(frame)
    return []


def _poison(shape, dt: np.dtype) -> np.ndarray:
    if dt.kind in "iub":
        return np.full(shape, 0x5A if dt.itemsize == 1 else -0x5A5A, dtype=dt) if dt.kind != "b" else \
            np.ones(shape, dtype=dt)
    return np.full(shape, np.nan, dtype=dt)


@impl("nvgpu.smem.alloc")
def _alloc(frame, op, _):
    t = op.result.type
    return [_poison(tuple(t.get_shape()), dtype_of(t.element_type))]


def _slot(buf: np.ndarray, i, op) -> int:
    s = int(i)
    if not 0 <= s < buf.shape[0]:
        raise InterpretError(f"{where(op)}slot {s} out of range for a buffer of {buf.shape[0]} slots")
    return s


@impl("nvgpu.smem.view")
def _view(frame, op, a):
    buf, i = a
    return [buf[_slot(buf, i, op)]]  # a view: later writes to the slot show through


@impl("nvgpu.smem.load")
def _load(frame, op, a):
    return [np.array(a[0])]  # registers: a copy, later writes to the slot do not show


@impl("nvgpu.convert_layout")
def _convert_layout(frame, op, a):
    return [np.array(a[0])]  # the same tile in other registers


@impl("nvgpu.smem.store")
def _store(frame, op, a):
    v, buf, i = a
    slot = buf[_slot(buf, i, op)]
    for flight in frame.inflight:  # wgmma reads its shared-memory operands until it retires
        if any(isinstance(x, np.ndarray) and np.may_share_memory(x, slot) for x in flight.inputs):
            raise InterpretError(f"{where(op)}nvgpu.smem.store overwrites slot {int(i)} of a buffer that an "
                                 "mma still in flight reads (no wait retired it)")
    slot[...] = np.asarray(v)
    return []


@impl("nvgpu.tma.async_load")
def _tma_load(frame, op, a):
    desc, *rest = a
    n = len(op.coords)
    idx, (buf, i, group, j) = [int(x) for x in rest[:n]], rest[n:]
    box = _box(desc, idx)  # out of bounds: zero
    s = _slot(buf, i, op)

    def land(buf=buf, s=s, box=box):
        buf[s] = box

    bar = group[int(j)]
    bar.copies.append((box.nbytes, land))
    _progress(frame)
    return []


@impl("nvgpu.tma.async_store")
def _tma_store(frame, op, a):
    buf, i, desc, *coords = a
    value = buf[_slot(buf, i, op)]
    if any(int(x) < 0 for x in coords):  # as tile.desc_store: TMA stores take coordinates >= 0
        raise InterpretError(f"{where(op)}nvgpu.tma.async_store: the box starts at {[int(x) for x in coords]}; "
                             "a TMA store's coordinates must be >= 0")
    w = _window(desc, [int(x) for x in coords])
    if w is not None:
        part = np.asarray(value)[w[1]]
        kind = op.reduce_kind
        desc.array[w[0]] = part if kind is None else _REDUCE[kind](desc.array[w[0]], part.astype(desc.array.dtype))
    return []


@impl("nvgpu.wgmma.mma_async")
def _mma(frame, op, a):
    return IMPLS["mma.async_dot"](frame, op, a)


@impl("nvgpu.wgmma.wait_group")
def _wait_group(frame, op, a):
    return IMPLS["mma.wait"](frame, op, a)


@impl("nvgpu.wg.dispatch")
def _dispatch(frame, op, _):
    if frame.scheduler is not None:
        raise InterpretError(f"{where(op)}nested warp-group dispatch is not supported")
    seed = None if frame.seed is None else hash((frame.seed, frame.pid)) & 0xFFFFFFFF
    sched = Scheduler(seed)
    bodies = []
    for n, br in enumerate(op.branches):
        sub = frame.fork(n, sched)
        bodies.append((f"warps {br.first_warp}-{br.first_warp + br.num_warps - 1} ({br.role.data})",
                       lambda sub=sub, br=br: sub.run_block(br.body.block, [])))
    sched.run(bodies)
    return []


@impl("nvgpu.wg.lead_warp")
def _lead_warp(frame, op, _):
    # the branch runs as one coroutine; its first warp's work is the body
    frame.run_block(op.body.block, [])
    return []


@impl("nvvm.read_sreg")
def _sreg(frame, op, _):
    reg = op.reg.data
    axis = "xyz".index(reg[-1]) if reg[-1] in "xyz" else None
    if reg.startswith("ctaid."):
        return [np.int32(frame.pid[axis])]
    if reg.startswith("nctaid."):
        return [np.int32(frame.grid[axis])]
    raise InterpretError(f"{where(op)}special register {reg} is per thread; the interpreter runs warp groups")


@impl("nvvm.elect_sync")
def _elect(frame, op, _):
    return [np.bool_(True)]


@impl("nvvm.shfl_sync")
def _shfl(frame, op, _):
    raise InterpretError(f"{where(op)}nvvm.shfl_sync is per thread; the interpreter runs warp groups")
