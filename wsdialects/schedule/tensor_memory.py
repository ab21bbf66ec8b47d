"""Tensor-memory traffic in a loop's dependence graph (Blackwell, ``tcgen05``).

On a machine whose dot results live in tensor memory (``result_memory`` ``tmem``), an MMA
writes its accumulator there, not into a warp group's registers, and the data crosses
between tensor memory and registers only through instructions of their own:

- a **load** (``tcgen05.ld``) wherever a register op reads a dot's result: it waits for the
  MMA to complete (a *blocking* edge: ``tcgen05.commit`` arrives on an mbarrier the reading
  warp waits on), occupies the machine's tensor-memory unit for bytes / rate cycles, and its
  result holds registers (a 128x128 f32 tile: 128 per thread of a warp group);
- a **store** (``tcgen05.st``) wherever a dot takes a register value as its A operand or its
  accumulator (attention's P, and O rescaled): the MMA waits for it (blocking: the writers'
  ``tcgen05.wait::st`` and an mbarrier arrive), and its result holds tensor memory.

A dot accumulating onto its own earlier result, or reading another dot's result as its
accumulator, stays in tensor memory: no load or store.  So FA4's accumulator O costs no
registers except where it is rescaled, and that rescale reads O through a load that blocks
on the previous P·V, which is what keeps it off a warp that issues exponentials (Twill §6.2.2)::

    %acc_s = arith.mulf %acc, %alpha_b      // node acc_s on a compute warp
    %o = tile.dot %p16, %v, %acc_s          // node o (single-thread issue, result in TMEM)
  ==> graph:  o(i-1) -[blocking]-> o.ld -> acc_s -> acc_s.st -[blocking]-> o
              p16 -> p16.st -[blocking]-> o
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Edge, Op
from .machine import Machine, TileInfo, replicated


@dataclass
class RawEdge:
    """An IR-level dependence before tensor-memory routing: ``role`` is the operand of a
    dot that the value is (``a``, ``b``, ``acc``), else None."""

    src: str
    dst: str
    delay: int
    distance: int
    blocking: bool
    role: str | None


def route(machine: Machine, ops: list[Op], edges: list[RawEdge], tiles: dict[str, TileInfo],
          used: set[str], team: int = 1, split: int = 1) -> tuple[list[Op], list[Edge]]:
    """Insert one load after each dot result a register op reads and one store before each
    register operand of a dot (A or accumulator); ``tiles``: each node's result tile,
    ``used``: the node names taken.  Other edges are kept as they are.  In a ping-pong team
    of ``team`` members (``split`` groups sharing each tile's rows) a member moves its own
    rows: 1/team of the cycles, 1/split of the registers; a one-row tile goes whole
    (``from_ir.replicated``)."""
    kind = {op.name: op.kind for op in ops}
    in_tmem = {n for n, k in kind.items() if k and machine.result_memory(k) == "tmem"}
    in_regs = {n for n, k in kind.items() if k and machine.result_memory(k) == "regs"}
    extra: dict[tuple[str, str], Op] = {}
    out: list[Edge] = []

    def access(src: str, direction: str) -> str:
        key = (src, direction)
        if key not in extra:
            tile = tiles[src]
            whole = replicated(tile)
            cost = machine.tmem_access(direction, tile)
            cycles = cost.cycles if whole else -(-cost.cycles // team)
            name, k = f"{src}.{'ld' if direction == 'load' else 'st'}", 1
            while name in used:
                k += 1
                name = f"{src}.{'ld' if direction == 'load' else 'st'}{k}"
            used.add(name)
            loaded = direction == "load"
            extra[key] = Op(name=name, uses={cost.unit: [1] * cycles}, latency=cycles,
                            regs=-(-machine.regs_per_thread(tile) // (1 if whole else split)) if loaded else 0,
                            tmem=0 if loaded else tile.bytes,
                            spill_cost=machine.spill_cycles(tile) if loaded else 0,
                            kind=machine.tensor_memory[direction].get("kind"))
            src_op = next(o for o in ops if o.name == src)
            # the load waits for the MMA; the store follows its register producer
            out.append(Edge(src, name, src_op.cycles, 0, blocking=loaded))
        return extra[key].name

    for e in edges:
        if e.src in in_tmem and e.role not in ("acc", "a") and kind[e.dst] not in machine.single_thread_issue:
            ld = access(e.src, "load")
            out.append(Edge(ld, e.dst, extra[(e.src, "load")].cycles, e.distance))
        elif e.src in in_regs and e.role in ("acc", "a"):
            st = access(e.src, "store")
            out.append(Edge(st, e.dst, extra[(e.src, "store")].cycles, e.distance, blocking=True))
        else:
            out.append(Edge(e.src, e.dst, e.delay, e.distance, e.blocking))
    return ops + list(extra.values()), out
