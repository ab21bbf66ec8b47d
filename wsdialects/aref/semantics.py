"""The formal semantics of an aref ring (Tawa Fig. 4), as the interpreter runs it.

Each slot holds a buffer and two flags: E (the producer may write) and F (a value
is published). Initially E = 1, F = 0. `put` waits for E, writes, clears E, sets
F; `get` waits for F and borrows the buffer; `consumed` gives the slot back
(E := 1) once every consumer group has released it. Ops block, they never fail.

Beyond Fig. 4 the interpreter checks what hardware would silently get wrong:
a get only accepts the value put at its own ring position (the parity the
lowering waits on), a consumed needs a get first, and the borrowed tiles are
poisoned once released so any later read is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wsdialects.interpreter.values import Guarded, InterpretError


@dataclass
class _Slot:
    empty: bool = True  # E
    full_pos: int | None = None  # F, with the ring position of the published value
    buf: tuple[Any, ...] | None = None
    got_by: set[int] = field(default_factory=set)
    released_by: set[int] = field(default_factory=set)


class Released(Guarded):
    """Stands for a tile whose aref slot was released: reading it is an error."""

    def __init__(self, ring: str, slot: int, pos: int):
        self.what = f"aref {ring} slot {slot} (position {pos})"


class Ring:
    """An aref ring of `depth` slots shared by one producer and `consumers` groups."""

    def __init__(self, name: str, depth: int, consumers: int = 1):
        self.name, self.depth, self.consumers = name, depth, consumers
        self.slots = [_Slot() for _ in range(depth)]

    def _slot(self, pos: int) -> tuple[int, _Slot]:
        if pos < 0:
            raise InterpretError(f"aref {self.name}: negative ring position {pos}")
        return pos % self.depth, self.slots[pos % self.depth]

    def put(self, sched, pos: int, values: tuple[Any, ...]) -> None:
        s, slot = self._slot(pos)
        sched.block_until(lambda: slot.empty, lambda: f"aref {self.name} slot {s} to be empty (put at position {pos})")
        slot.empty, slot.buf, slot.full_pos = False, values, pos
        slot.got_by, slot.released_by = set(), set()

    def get(self, sched, who: int, pos: int) -> tuple[Any, ...]:
        s, slot = self._slot(pos)
        sched.block_until(
            lambda: slot.full_pos == pos and who not in slot.got_by,
            lambda: f"aref {self.name} slot {s} to be full (get at position {pos})",
        )
        slot.got_by.add(who)
        return slot.buf

    def consumed(self, pos: int, who: int) -> tuple[Any, ...]:
        """Release the slot; returns the borrowed values so the caller can poison them."""
        s, slot = self._slot(pos)
        if slot.full_pos != pos or who not in slot.got_by or who in slot.released_by:
            raise InterpretError(
                f"aref {self.name}: consumed at position {pos} (slot {s}) without a matching get"
            )
        slot.released_by.add(who)
        values = slot.buf
        if len(slot.released_by) == self.consumers:
            slot.empty, slot.full_pos, slot.buf = True, None, None
        return values
