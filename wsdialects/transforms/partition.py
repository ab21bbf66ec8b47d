"""`ws-partition`: task-aware partitioning (Tawa §III-C1).

Walks backwards along use-def chains from the kernel's side effects and tags
every op with the partitions that need it:

- the producer (partition 0) owns the TMA loads of the main loop (and the
  one-shot loads before it) together with their address computation;
- the consumer (partition 1) owns everything the stores need, except the values
  that producer loads deliver (those will travel through arefs);
- an op both need (a program id, an offset used by a load and by the epilogue)
  is tagged for both and later duplicated, never moved.

Tags: `ws.partition = array<i32: ...>` on every op, `ws.role = "iter"` (address
computation / TMA load, Tawa's iteration statements) or `"tile"` (compute), and on
the main loop `ws.carried`, the partitions of each iter_arg:

    %a = tile.desc_load %ad[%m, %k] {ws.partition = array<i32: 0>, ws.role = "iter"} : ...
    %d = tile.dot %a, %bt, %acc {ws.partition = array<i32: 1>, ws.role = "tile"} : ...

A kernel without a loop holding a TMA load is left as it is, with a remark.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, ModuleOp, StringAttr, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.diagnostics import location_of
from wsdialects.tile import KERNEL_ATTR, DescLoadOp

PRODUCER, CONSUMER = 0, 1
PARTITION_ATTR = "ws.partition"
ROLE_ATTR = "ws.role"
CARRIED_ATTR = "ws.carried"
PARTITIONED_ATTR = "ws.partitioned"


def remark(op: Operation, message: str) -> None:
    loc = location_of(op)
    where = f"{loc[0]}:{loc[1]}:{loc[2]}: " if loc else ""
    print(f"{where}remark: {message}", file=sys.stderr)


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes]


def main_loop(kernel: func.FuncOp) -> scf.ForOp | None:
    """The top-level scf.for whose body issues TMA loads (the K loop)."""
    for op in kernel.body.block.ops:
        if isinstance(op, scf.ForOp) and any(isinstance(o, DescLoadOp) for o in op.body.block.ops):
            return op
    return None


def producer_loads(kernel: func.FuncOp, loop: scf.ForOp) -> list[DescLoadOp]:
    """TMA loads the producer issues: those in the loop body and those before it."""
    before = []
    for op in kernel.body.block.ops:
        if op is loop:
            break
        if isinstance(op, DescLoadOp):
            before.append(op)
    return before + [o for o in loop.body.block.ops if isinstance(o, DescLoadOp)]


def _top_level_in(op: Operation, block: Block) -> Operation | None:
    cur: Operation | None = op
    while cur is not None and cur.parent_block() is not block:
        cur = cur.parent_op()
    return cur


@dataclass
class Slice:
    """The ops (and iter_args of the main loop) one partition needs."""

    ops: set[Operation]
    carried: set[int]


def backward_slice(roots: list[SSAValue], loop: scf.ForOp, stop: set[Operation]) -> Slice:
    """Everything `roots` depend on. Crossing the main loop: a loop result or
    iter_arg j brings in its init value and the value yielded for it; ops in
    `stop` are included but not walked through (their values arrive by aref)."""
    ops: set[Operation] = set()
    carried: set[int] = set()
    # Every partition runs its own copy of the loop: the bounds are always needed.
    work = [*roots, loop.lb, loop.ub, loop.step]
    yield_op = loop.body.block.last_op
    nested_seen: set[Operation] = set()

    def need_carried(j: int) -> None:
        if j not in carried:
            carried.add(j)
            work.append(loop.iter_args[j])
            work.append(yield_op.operands[j])

    while work:
        v = work.pop()
        if isinstance(v, BlockArgument):
            owner = v.block.parent_op()
            if owner is loop and v.index > 0:
                need_carried(v.index - 1)
            continue
        op = v.owner
        if op is loop:
            need_carried(v.index)
            ops.add(loop)
            work.extend([loop.lb, loop.ub, loop.step])
            continue
        if op in ops:
            continue
        ops.add(op)
        if op in stop:
            continue
        work.extend(op.operands)
        # Region ops: their bodies' uses of outer values matter too.
        for inner in op.walk():
            if inner is not op and inner not in nested_seen:
                nested_seen.add(inner)
                ops.add(inner)
                work.extend(o for o in inner.operands)
    return Slice(ops, carried)


def writes_memory(op: Operation) -> bool:
    """Stores, and any op whose effects are unknown (kept, to be safe)."""
    from xdsl.traits import MemoryEffectKind, get_effects

    if op.regions:
        return False  # region ops are judged by the ops inside
    effects = get_effects(op)
    return effects is None or any(e.kind == MemoryEffectKind.WRITE for e in effects)


def sinks(kernel: func.FuncOp) -> list[Operation]:
    """The side effects the kernel exists for: its stores."""
    return [op for op in kernel.body.walk()
            if op.name not in ("func.return", "scf.yield") and writes_memory(op)]


@dataclass
class Partitioning:
    """The result of the analysis for one kernel."""

    loop: scf.ForOp
    loads: list[DescLoadOp]
    producer: Slice
    consumer: Slice


def analyze(kernel: func.FuncOp) -> Partitioning | None:
    loop = main_loop(kernel)
    if loop is None:
        return None
    loads = producer_loads(kernel, loop)
    prod = backward_slice([r for ld in loads for r in ld.results], loop, set())
    roots = [v for s in sinks(kernel) for v in s.operands]
    cons = backward_slice(roots, loop, set(loads))
    # The sinks themselves (and every op of the consumer's epilogue) are consumer ops.
    for s in sinks(kernel):
        cons.ops.add(s)
        top = _top_level_in(s, loop.body.block) or _top_level_in(s, kernel.body.block)
        if top is not None:
            cons.ops.add(top)
    # Loads the consumer reaches are delivered by the producer, not re-issued.
    cons.ops -= set(loads)
    return Partitioning(loop, loads, prod, cons)


def _tag(op: Operation, parts: list[int], role: str) -> None:
    op.attributes[PARTITION_ATTR] = DenseArrayBase.from_list(i32, parts)
    op.attributes[ROLE_ATTR] = StringAttr(role)


def partitions_of(op: Operation) -> list[int]:
    attr = op.attributes.get(PARTITION_ATTR)
    return list(attr.get_values()) if isinstance(attr, DenseArrayBase) else []


@dataclass(frozen=True)
class PartitionPass(ModulePass):
    """Tag ops with producer / consumer partitions (see the module docstring)."""

    name = "ws-partition"

    def apply(self, ctx, op: ModuleOp) -> None:
        for kernel in kernels(op):
            p = analyze(kernel)
            if p is None:
                remark(kernel, f"ws-partition: @{kernel.sym_name.data} has no loop with a TMA load "
                               "(tile.desc_load); it is left as it is, not warp-specialized")
                continue
            self._tag_kernel(kernel, p)

    @staticmethod
    def _tag_kernel(kernel: func.FuncOp, p: Partitioning) -> None:
        for inner in kernel.body.walk():
            if inner.name in ("scf.yield", "func.return"):
                continue
            parts = [x for x, s in ((PRODUCER, p.producer), (CONSUMER, p.consumer)) if inner in s.ops]
            if inner is p.loop:
                parts = [PRODUCER, CONSUMER]
            if not parts:
                parts = [CONSUMER]  # unused pure code stays with the compute side
            role = "iter" if inner in p.producer.ops and inner is not p.loop else "tile"
            _tag(inner, parts, role)
        carried = []
        for j in range(len(p.loop.iter_args)):
            parts = [x for x, s in ((PRODUCER, p.producer), (CONSUMER, p.consumer)) if j in s.carried]
            carried.append(DenseArrayBase.from_list(i32, parts))
        p.loop.attributes[CARRIED_ATTR] = ArrayAttr(carried)
        kernel.attributes[PARTITIONED_ATTR] = StringAttr("producer, consumer")
