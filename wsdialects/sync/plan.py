"""What the synchronization skeleton (`wsdialects.sync.skeleton`) makes of the ops of a block,
decided once per kernel: the ops it follows, the kinds of plan entry, the scalar arithmetic
it computes without `Skeleton.compute`, and `IterationBound`, the steps a loop of the
skeleton surely takes (a run that will surely overrun its budget stops at once).
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, BlockArgument, Operation

# The ops the check follows; everything else only computes.
AREF_OPS = {"aref.put": "put", "aref.get": "get", "aref.consumed": "consumed"}
TEAM_OPS = {"warp_group.gather": "gather", "warp_group.turn_wait": "turn_wait", "warp_group.turn_pass": "turn_pass"}
BARRIER_OPS = {"nvgpu.mbarrier.try_wait.parity": "wait", "nvgpu.mbarrier.arrive": "arrive",
               "nvgpu.mbarrier.arrive_expect_tx": "arrive_tx", "nvgpu.tma.async_load": "tma",
               "nvvm.barrier": "bar_sync", "nvvm.barrier_arrive": "bar_arrive",
               "nvgpu.smem.view": "read", "nvgpu.tma.async_store": "read", "nvgpu.smem.store": "write"}
SYNC_OPS = {**AREF_OPS, **TEAM_OPS, **BARRIER_OPS}
CONTAINERS = ("warp_group.region", "nvgpu.wg.dispatch")

# What `Skeleton.plan` found an op to be.
_RETURN, _LOOP, _BRANCH, _SYNC, _COMPUTE, _CONTAINER, _INIT, _UNSUPPORTED, _INLINE = (
    "return", "loop", "branch", "sync", "compute", "container", "init", "unsupported", "inline")

_MASK = {1: 1, 8: 0xFF, 16: 0xFFFF, 32: 0xFFFFFFFF, 64: 0xFFFFFFFFFFFFFFFF}


def _wrap(x: int, bits: int) -> int:
    x &= _MASK[bits]
    return x - (1 << bits) if bits > 1 and x >> (bits - 1) else x


def _unwrapped(bits: int) -> tuple[int, int]:
    """(lo, hi): the integers x that `_wrap(x, bits)` leaves as they are, lo <= x < hi."""
    return (0, 2) if bits == 1 else (-(1 << (bits - 1)), 1 << (bits - 1))


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


_INT = {
    "arith.addi": operator.add, "arith.subi": operator.sub, "arith.muli": operator.mul,
    "arith.maxsi": max, "arith.minsi": min, "arith.andi": operator.and_, "arith.ori": operator.or_,
    "arith.xori": operator.xor, "arith.divsi": _tdiv, "arith.remsi": lambda a, b: a - _tdiv(a, b) * b,
    "arith.ceildivsi": lambda a, b: -((-a) // b) if (a > 0) == (b > 0) else _tdiv(a, b),
    "arith.floordivsi": operator.floordiv,
}
_CMP = {0: operator.eq, 1: operator.ne, 2: operator.lt, 3: operator.le, 4: operator.gt, 5: operator.ge}
_DIVLIKE = ("arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi")
_FAULTING = frozenset(_DIVLIKE + ("arith.divui", "arith.remui", "arith.ceildivui"))  # divisor 0: a Fault

_KNOWN_TYPES = (int, float, bool)


def _known(x) -> bool:
    return type(x) in _KNOWN_TYPES or isinstance(x, int | float | bool | np.generic)


def _is_scalar(t) -> bool:
    return isinstance(t, IntegerType | IndexType) or type(t).__name__.startswith(("Float", "BFloat"))


def _bits(t) -> int | None:
    if isinstance(t, IndexType):
        return 64
    return t.width.data if isinstance(t, IntegerType) and t.width.data in _MASK else None


# How `Skeleton.block` computes a control value (`_fast_path`): without calling `compute`
# while the operands are plain integers (the same results `compute` gives), else by it;
# `_wrap` only where the result is outside the range it leaves as it is (`_unwrapped`).
_F_GENERAL, _F_CONST, _F_INT, _F_CAST, _F_CMP = range(5)


def _fast_path(op: Operation, bits: int | None) -> tuple:
    """(mode, data) for `op`'s entry in a plan; see `Skeleton.block`."""
    name, n = op.name, len(op.operands)
    if name == "arith.constant":
        v = op.value
        if isinstance(v, IntegerAttr | FloatAttr) and _is_scalar(op.results[0].type):
            return _F_CONST, v.value.data
    elif bits and name in _INT and n == 2:
        return _F_INT, (_INT[name], name in _DIVLIKE, *_unwrapped(bits))
    elif bits and name in ("arith.divui", "arith.remui") and n == 2:
        return _F_INT, (_unsigned(name, bits), True, *_unwrapped(bits))
    elif bits and name in ("arith.index_cast", "arith.extsi", "arith.trunci") and n == 1:
        return _F_CAST, _unwrapped(bits)
    elif name == "arith.cmpi" and n == 2 and op.predicate.value.data in _CMP:
        return _F_CMP, _CMP[op.predicate.value.data]
    return _F_GENERAL, None


def _unsigned(name: str, bits: int) -> Callable[[int, int], int]:
    """arith.divui / arith.remui of `bits`-bit integers (a nonzero divisor), as `Skeleton.compute`."""
    mask = _MASK[bits]
    if name == "arith.divui":
        return lambda a, b: (a & mask) // (b & mask)
    return lambda a, b: (a & mask) % (b & mask)


def sync_differs(op: Operation) -> list[str]:
    """The synchronizing ops that only one branch of scf.if `op` has (the same op on the same
    ring or barrier, with the same properties, counted on both paths); [] where they agree."""
    from collections import Counter

    def sig(region) -> Counter:
        return Counter((o.name, o.operands[0] if o.operands else None, str(o.properties))
                       for o in region.walk() if o.name in SYNC_OPS and o.name not in ("nvgpu.smem.view",))

    a, b = (sig(r) for r in op.regions)
    return sorted({n for (n, _, _) in (a - b) + (b - a)}) if a != b else []


class Overrun:
    """When a skeleton run will surely overrun its budget, so that `Skeleton` raises `TooLong`
    at once instead of running on up to the budget: each profile's integers shrink until a
    run fits, and a persistent kernel with few programs overruns at several of them (most of
    the check's time went into such runs). Exact: it says so only where the run, going on,
    would raise `TooLong` and nothing else before it; the traces are the same.

    - `per_iteration`: the steps each iteration of a loop surely counts, read after its first
      iteration. An iteration counts one step, one per value computed outside any branch of
      its body (inlined blocks included) and, for each loop in it whose bounds stay the same in
      every iteration, one per iteration of that loop plus one per value its body computes
      outside any branch. The budget is checked at each computed value, so with R iterations
      left the last one's first computed value sees at least steps + (R - 1) * per + 2.
    - `quiet`: whether a partition can raise nothing but `TooLong` (see `Skeleton.container`,
      which also needs the steps of a later partition up to its first loop).

    Nothing else may raise first: no unsupported op or nested region, no division whose
    divisor may be 0 (a Fault), no scf.if whose branches synchronize differently unless its
    condition is surely known (else the check reports it). A value "stays the same" where it
    is defined before the loop (or partition), or computed at the top of the loop's body from
    such values: after the first iteration the run holds what it is in every iteration."""

    def __init__(self, plan: Callable[[Block], tuple], cache: dict):
        self.plan, self.cache = plan, cache  # `Skeleton.plan`; its plans (one kernel, one module state)

    def per_iteration(self, loop: Operation, body: Block, env: dict) -> int | None:
        """The steps each remaining iteration of `loop` surely counts, read after its first
        iteration from the run's values `env`; None where the run might not overrun or might
        raise something else first."""
        key = ("per", id(body))
        info = self.cache.get(key, key)
        if info is key:
            info = self.cache[key] = self._iteration(loop, body)
        if info is None or not info[2].holds(env):
            return None
        per, inner, _ = info
        get = env.get
        for bound_ids, inner_per in inner:
            lb, ub, step = (get(v) for v in bound_ids)
            if type(lb) is int and type(ub) is int and type(step) is int and step > 0 and ub > lb:
                per += (ub - lb + step - 1) // step * inner_per
        return per

    def quiet(self, region: Operation, env: dict) -> bool:
        """Whether running the block of `region` (a partition or branch) from values `env` can
        raise nothing but `TooLong`."""
        key = ("quiet", id(region))
        info = self.cache.get(key, key)
        if info is key:
            found = _Checks(self.plan, region, set())
            info = self.cache[key] = None if found.may_raise(region.regions[0].block) else found
        return info is not None and info.holds(env)

    def _iteration(self, loop: Operation, body: Block):
        """(steps an iteration counts besides its inner loops, [(ids of an inner loop's bounds,
        steps each of its iterations counts)], what must hold of the values) or None."""
        top: set[Operation] = set()  # the ops computed in every iteration, before any use
        own = 1 + _computed(self.plan, body, top)
        checks = _Checks(self.plan, loop, top)
        if own == 1 or checks.may_raise(body):
            return None  # (own == 1: nothing checks the budget in an iteration)
        inner = []
        blocks = [body]
        while blocks:  # the loops of the body and of the blocks it inlines
            for e in self.plan(blocks.pop())[1]:
                if e[0] is _INLINE:
                    blocks.append(e[2])
                elif e[0] is _LOOP and all(checks.stays(v) for v in e[1].operands[:3]):
                    inner.append((e[2][:3], 1 + _computed(self.plan, e[4], set())))
        return own, inner, checks


def _computed(plan, block: Block, ops: set) -> int:
    """How many values `block` computes outside any branch (inlined blocks included); adds their ops to `ops`."""
    n = 0
    for e in plan(block)[1]:
        if e[0] is _COMPUTE:
            n += 1
            ops.add(e[1])
        elif e[0] is _INLINE:
            n += _computed(plan, e[2], ops)
    return n


class _Checks:
    """Whether a run inside `region` may raise anything but `TooLong`, and what must hold of the
    values a run has when it asks (see `Overrun`): ids that must not hold a known 0 (divisors),
    an int, or a known value (branch conditions). `top`: the ops inside `region` whose values
    the run already holds, the same in every iteration (empty: none)."""

    def __init__(self, plan, region: Operation, top: set[Operation]):
        self.plan, self.region, self.top = plan, region, top
        self.nonzero: list[int] = []
        self.ints: list[int] = []
        self.known: list[int] = []
        self.same: dict = {}
        self.entries: dict[int, dict] = {}  # id(block) -> {op: its compute entry}

    def holds(self, env: dict) -> bool:
        get = env.get
        for v in self.nonzero:
            x = get(v)
            if _known(x) and x == 0:
                return False
        return all(type(get(v)) is int for v in self.ints) and all(_known(get(v)) for v in self.known)

    def stays(self, v) -> bool:
        """Whether `v` holds the same value wherever the run reads it inside `region`."""
        same = self.same
        if v not in same:
            owner = v.owner
            if not _inside(v, self.region):
                same[v] = True
            elif isinstance(owner, Operation) and owner in self.top:
                same[v] = False  # (SSA: no cycle reaches back here but through block arguments)
                same[v] = all(self.stays(o) for o in owner.operands)
            else:
                same[v] = False
        return same[v]

    def _entry_of(self, v) -> tuple | None:
        """The compute entry of the op defining `v`, else None."""
        owner = v.owner
        block = owner.parent_block() if isinstance(owner, Operation) else None
        if block is None:
            return None
        if id(block) not in self.entries:
            self.entries[id(block)] = {e[1]: e for e in self.plan(block)[1] if e[0] is _COMPUTE}
        return self.entries[id(block)].get(owner)

    def surely_int(self, v) -> bool:
        """Whether `v` holds a Python int wherever the run reads it."""
        if isinstance(v, BlockArgument) and v.index == 0 and (loop := v.block.parent_op()) is not None \
                and loop.name == "scf.for":
            return True  # an induction variable
        if self.stays(v):
            self.ints.append(id(v))
            return True
        e = self._entry_of(v)
        if e is None:
            return False
        fast, data = e[5], e[6]
        if fast == _F_CONST:
            return type(data) is int
        if fast == _F_INT:
            return not data[1] and all(self.surely_int(o) for o in e[1].operands)
        if fast == _F_CAST:
            return self.surely_int(e[1].operands[0])
        return False

    def surely_known(self, c) -> bool:
        """Whether branch condition `c` is surely known (not from tile data)."""
        if self.stays(c):
            self.known.append(id(c))
            return True
        e = self._entry_of(c)
        return e is not None and e[5] == _F_CMP and all(self.surely_int(o) for o in e[1].operands)

    def may_raise(self, block: Block) -> bool:
        """Whether running `block` may raise anything but `TooLong` (given what `holds` checks)."""
        for e in self.plan(block)[1]:
            what = e[0]
            if what is _UNSUPPORTED or what is _CONTAINER:
                return True
            if what is _COMPUTE and e[1].name in _FAULTING:
                d = e[1].operands[1]
                if not _nonzero_constant(d):
                    if not self.stays(d):
                        return True
                    self.nonzero.append(id(d))
            elif what is _LOOP:
                if self.may_raise(e[4]):
                    return True
            elif what is _INLINE:
                if self.may_raise(e[2]):
                    return True
            elif what is _BRANCH:
                op = e[1]
                if sync_differs(op) and not self.surely_known(op.operands[0]):
                    return True
                if any(self.may_raise(r.block) for r in op.regions if r.blocks):
                    return True
        return False


def _inside(v, op: Operation) -> bool:
    """Whether SSA value `v` is defined inside `op` (by an op in it, or as an argument of one of its blocks)."""
    owner = v.owner
    where = owner.parent_op() if isinstance(owner, Block) else owner
    return where is not None and op.is_ancestor(where)


def _nonzero_constant(v) -> bool:
    owner = v.owner
    return (isinstance(owner, Operation) and owner.name == "arith.constant"
            and isinstance(owner.value, IntegerAttr) and owner.value.value.data != 0)
