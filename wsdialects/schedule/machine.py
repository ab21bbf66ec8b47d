"""The machine model: functional units and what each tile op costs on them.

A machine is a data file (``machines/<name>.json``) listing unit capacities,
per-op throughput rules (which unit an op occupies, and for how many cycles
given its tile size; ``latency``: the cycles after that until its result can be
used, e.g. the tensor-core pipeline and the wait of a wgmma), which ops are variable latency, which results need a
blocking wait, where results live (registers, shared or tensor memory) and the
register-file and shared-memory capacities.

``chain_latency`` (optional) is a composite calibration of a warp group's elementwise
work as it executes in a dependent chain (attention's softmax: row max, exp2, row sum,
convert, with their shuffles and dependences): the result of an op on one of its
``units`` is ready ``factor`` times its unit occupancy after it issues: ``with_partner``
for a member of a ping-pong team, whose partner runs the same elementwise work on the same
SM sub-partitions (sharing their issue slots and pipelines in a way the units' occupancies
do not show), ``alone`` otherwise.  ``tools/calibrate.py`` fits both from the softmax step
it measures on the GPU, one warp group per SM and two.

Blackwell (``b200.json``) adds three things Hopper's model has no use for:
``tensor_memory`` (the costs of ``tcgen05.ld`` / ``tcgen05.st``, bytes per cycle on their
own unit: a dot's result lives in tensor memory, ``result_memory`` ``tmem``, and a register
op reads it through a load that blocks on the MMA; see ``tensor_memory.py``),
``single_thread_issue`` (ops one thread issues, ``tcgen05.mma``: they may sit on a warp of
their own) and ``tmem_capacity`` (bytes of tensor memory per SM, enforced like shared memory).
``description`` gives the public source of every figure; ``search`` the defaults of
``ws-schedule`` on the machine (``normalize``, the §5.2 bound U, default 300, the paper's;
``time_limit`` in seconds, default 10).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any

MACHINES_DIR = os.path.join(os.path.dirname(__file__), "machines")
ARCHES = ("h100", "b200")


@dataclass
class TileInfo:
    """What the cost rules need to know about a tile value: its shape and element width."""

    shape: tuple[int, ...]
    bits: int

    @property
    def elements(self) -> int:
        return math.prod(self.shape) if self.shape else 1

    @property
    def bytes(self) -> int:
        return (self.elements * self.bits + 7) // 8


def replicated(t: TileInfo) -> bool:
    """A tile of one row (a row vector broadcast along M, attention backward's LSE and
    Delta): a team that splits the rows does not split it; every member holds and
    computes all of it (ws-cooperative's axis map leaves it whole)."""
    return len(t.shape) >= 1 and t.shape[0] == 1


@dataclass
class OpCost:
    unit: str | None
    cycles: int
    variable_latency: bool
    extra_latency: int = 0  # cycles after the unit is free until the result can be used


class Machine:
    def __init__(self, data: dict[str, Any]):
        self.data = data
        self.name: str = data["name"]
        self.units: dict[str, int] = dict(data["units"])
        self.costs: dict[str, dict] = data["costs"]
        self.views: set[str] = set(data.get("views", ()))
        self.blocking_from: set[str] = set(data.get("blocking_from", ()))
        self.smem_capacity: int = data["smem_capacity"]
        self.spill_bytes_per_cycle: int = data["spill_bytes_per_cycle"]
        self.registers: dict[str, int] = data["registers"]
        self.chain_latency: dict = data.get("chain_latency", {})
        self.tensor_memory: dict[str, dict] = data.get("tensor_memory", {})
        self.single_thread_issue: set[str] = set(data.get("single_thread_issue", ()))
        self.tmem_capacity: int | None = data.get("tmem_capacity") if self.tensor_memory else None
        search = data.get("search", {})
        # ws-schedule's defaults on this machine: the §5.2 bound U and the time limit (seconds)
        self.normalize: int = int(search.get("normalize", 300))
        self.time_limit: float = float(search.get("time_limit", 10))

    def tmem_access(self, direction: str, tile: TileInfo) -> OpCost:
        """A ``tcgen05.ld`` (``load``) or ``tcgen05.st`` (``store``) of ``tile``: its unit and cycles."""
        rule = self.tensor_memory[direction]
        return OpCost(rule["unit"], max(1, math.ceil(tile.bytes / rule["per_cycle"])), False)

    def chain_factor(self, unit: str | None, partner: bool) -> float:
        """How many times its unit occupancy an op on ``unit`` takes until its result can
        be used, in a warp group alone on the SM or beside a partner (``chain_latency``)."""
        c = self.chain_latency
        if not c or unit not in c.get("units", ()):
            return 1.0
        return float(c["with_partner" if partner else "alone"])

    def rule(self, op_name: str) -> dict | None:
        if op_name in self.costs:
            return self.costs[op_name]
        dialect = op_name.split(".", 1)[0] + ".*"
        return self.costs.get(dialect)

    def is_view(self, op_name: str) -> bool:
        """Layout-only ops (transpose, broadcast, ...) that consumers absorb."""
        return op_name in self.views

    def op_cost(self, op_name: str, results: list[TileInfo], operands: list[TileInfo]) -> OpCost:
        """Cycles an op occupies its unit, from the throughput rule and tile sizes."""
        rule = self.rule(op_name)
        if rule is None:
            return OpCost(None, 0, False)
        measure = rule["measure"]
        if measure == "flops":
            # C[M,N] += A[M,K] @ B[K,N]: 2*M*N*K
            a = operands[0].shape
            m_n = results[0].elements
            work = 2 * m_n * (a[-1] if a else 1)
        elif measure == "elements":
            work = max((r.elements for r in results), default=0)
        elif measure == "operand_elements":
            work = max((o.elements for o in operands), default=0)
        elif measure == "bytes":
            work = sum(r.bytes for r in results)
        elif measure == "operand_bytes":
            work = max((o.bytes for o in operands), default=0)
        else:
            raise ValueError(f"machine {self.name}: unknown cost measure '{measure}'")
        cycles = max(1, math.ceil(work / rule["per_cycle"])) if work else 0
        return OpCost(rule["unit"], cycles, bool(rule.get("variable_latency", False)),
                      int(rule.get("latency", 0)) if work else 0)

    def result_memory(self, op_name: str) -> str:
        mem = self.data.get("result_memory", {})
        return mem.get(op_name, mem.get("*", "regs"))

    def regs_per_thread(self, tile: TileInfo) -> int:
        """Registers per thread when one warp group holds the tile."""
        threads = self.registers["threads_per_warp_group"]
        return math.ceil(tile.bytes / (4 * threads))

    def spill_cycles(self, tile: TileInfo) -> int:
        """Cost of handing a register tile to another warp through shared memory (store + load)."""
        return math.ceil(2 * tile.bytes / self.spill_bytes_per_cycle)

    def reg_limit(self, warp_groups: int) -> int:
        """Per-thread register budget of each compute warp group when the
        variable-latency warp group keeps only a minimal allocation."""
        r = self.registers
        threads = r["threads_per_warp_group"]
        avail = r["file"] - r["variable_latency_warp_regs"] * threads
        per = avail // (warp_groups * threads)
        per -= per % r.get("granularity", 1)
        return min(per, r["max_per_thread"])


def load_machine(name_or_path: str) -> Machine:
    """A machine by name (``h100``, ``b200``) or by path to a JSON file."""
    path = name_or_path
    if not os.path.exists(path):
        path = os.path.join(MACHINES_DIR, f"{name_or_path}.json")
        if not os.path.exists(path):
            raise ValueError(f"unknown machine '{name_or_path}' (known: {', '.join(ARCHES)})")
    with open(path, encoding="utf-8") as f:
        return Machine(json.load(f))
