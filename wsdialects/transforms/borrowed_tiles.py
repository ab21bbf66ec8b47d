"""The tiles a partition borrows from an aref slot, and the ops that use them.

`aref.get` lends the consumer the tiles of one ring slot; the slot may be refilled
only after `aref.consumed`, so that release must follow the last op reading the
tiles -- or anything that may hold them: a view of them (`tile.trans`, read in
shared memory by the lowering), the result of an `scf.if` / inner `scf.for` that
yields them, an inner loop's iter_arg they enter. ws-distribute places each
`consumed` after that last use; ws-pipeline-mma, ws-pipeline-coarse and the stage
ordering ask which ops read a slot:

    %a, %b = aref.get %ab[%k] : ...
    %bt = tile.trans %b ...                 // a view: still the slot's tile
    %d = tile.dot %a, %bt, %acc ...         // the last use of %a, %bt
    aref.consumed %ab[%k] : ...             // the slot is released here
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, SSAValue

from wsdialects.aref import ConsumedOp, GetOp
from wsdialects.tile import TransOp

# Ops that only re-view a tile the consumer borrowed (the lowering reads them in
# shared memory), so the slot stays in use while they are used.
VIEW_OPS = (TransOp,)


def aliases(block: Block, values: set[SSAValue], views=VIEW_OPS) -> set[SSAValue]:
    """`values` and what may hold the same tiles within `block`: their views, the
    results of the region ops (`scf.if`, an inner `scf.for`) that yield them, and
    the iter_args of an inner loop they enter (not the iter_args of `block`'s own loop).
    Found from each value's uses (ops inside `block`, at any depth)."""
    values = set(values)
    own = block.parent_op()
    work = list(values)
    while work:
        v = work.pop()
        for use in v.uses:
            op, j = use.operation, use.index
            if _top_in(block, op) is None:
                continue
            new: list[SSAValue] = []
            if isinstance(op, views):
                if j == 0:
                    new.append(op.results[0])
            elif isinstance(op, scf.YieldOp):
                parent = op.parent_op()
                if parent is not own and parent is not None and j < len(parent.results):
                    new.append(parent.results[j])
                    if isinstance(parent, scf.ForOp):
                        new.append(parent.body.block.args[j + 1])
            elif isinstance(op, scf.ForOp) and op is not own and j >= 3:  # iter_arg j - 3
                new += [op.body.block.args[j - 2], op.results[j - 3]]
            for w in new:
                if w not in values:
                    values.add(w)
                    work.append(w)
    return values


def _top_in(block: Block, op: Operation) -> Operation | None:
    """The op of `block` (top level) that is or holds `op`; None if `op` is not inside `block`."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def borrowed(block: Block, get: GetOp, views=VIEW_OPS) -> set[SSAValue]:
    """The tiles of `get`'s slot and what aliases them in `block` (see `aliases`)."""
    return aliases(block, set(get.results), views)


def users_in(block: Block, values: set[SSAValue]) -> list[Operation]:
    """Ops of `block` (top level) that use `values`, directly or inside their regions, in
    block order."""
    tops = {_top_in(block, use.operation) for v in values for use in v.uses}
    return [op for op in block.ops if op in tops]


def release_after_last_use(block: Block, get: GetOp, consumed: ConsumedOp, views=VIEW_OPS) -> None:
    """Insert `consumed` right after the last op of `block` using the get's tiles."""
    users = users_in(block, borrowed(block, get, views))
    block.insert_op_after(consumed, users[-1] if users else get)
