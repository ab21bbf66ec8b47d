"""A solved schedule: II, length L, and each op's start cycle, stage and warp.

``start`` is the op's issue cycle counted from the beginning of its own
iteration (M(v) in the paper); ``stage = start // II`` says in which of the
``ceil(L/II)`` overlapped copies of the iteration it runs in the steady state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Placement:
    start: int
    stage: int
    warp: int


@dataclass
class Schedule:
    ii: int
    length: int
    ops: dict[str, Placement]
    solve_seconds: float = 0.0
    solver: str = ""
    res_mii: int = 0
    rec_mii: int = 0
    warp_count: int = 1  # warps available to fixed-latency ops
    vl_warp: int | None = None  # the warp dedicated to variable-latency ops, if any
    issuer_warp: int | None = None  # the warp that may take single-thread ops (tcgen05.mma), if any
    attempts: list[dict[str, Any]] = field(default_factory=list)  # Algorithm 1's trail

    @property
    def II(self) -> int:  # noqa: N802 - the paper's name
        return self.ii

    @property
    def L(self) -> int:  # noqa: N802
        return self.length

    @property
    def stages(self) -> int:
        """Number of overlapped iteration copies, ceil(L / II)."""
        return max(1, -(-self.length // self.ii))

    def steady_state(self) -> list[tuple[str, int, int]]:
        """The ops issued in one steady-state window of II cycles, as
        ``(name, cycle within the window, iteration offset)``; offset 0 is the
        newest iteration, offset ``s`` one started ``s`` iterations earlier."""
        rows = [(name, p.start % self.ii, p.stage) for name, p in self.ops.items()]
        return sorted(rows, key=lambda r: (r[1], r[0]))

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "II": self.ii,
            "L": self.length,
            "ops": {n: {"start": p.start, "stage": p.stage, "warp": p.warp} for n, p in self.ops.items()},
            "solve_seconds": round(self.solve_seconds, 4),
            "solver": self.solver,
            "res_mii": self.res_mii,
            "rec_mii": self.rec_mii,
            "attempts": self.attempts,
        }
