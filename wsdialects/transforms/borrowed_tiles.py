"""The tiles a partition borrows from an aref slot, and the ops that use them.

`aref.get` lends the consumer the tiles of one ring slot; the slot may be refilled
only after `aref.consumed`, so that release must follow the last op reading the
tiles -- or anything that may hold them: a view of them (`tile.trans`, read in
shared memory by the lowering), the result of an `scf.if` / inner `scf.for` that
yields them, an inner loop's iter_arg they enter -- and an `mma.async_dot` written in the
kernel reads them until the `mma.wait` retiring it. ws-distribute places each
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
from wsdialects.mma import AsyncDotOp, WaitOp
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


def retiring_waits(block: Block, users: list[Operation]) -> list[Operation]:
    """The ops of `block` (top level) holding the `mma.wait`s that retire the `mma.async_dot`s
    among (or inside) `users`: an async dot reads its operands until then. Found through the
    dot's result: a wait taking it, or the next async dot taking it as its accumulator (a chain
    retires with its last dot). A dot whose result leaves `block` in flight (yielded: ws-pipeline-
    mma's own dots, whose slots it releases itself) has none here."""
    work = [d for u in users for d in ([u] if isinstance(u, AsyncDotOp) else u.walk()) if isinstance(d, AsyncDotOp)]
    found, seen = [], set()
    while work:
        d = work.pop()
        if d in seen:
            continue
        seen.add(d)
        for use in d.result.uses:
            o = use.operation
            if isinstance(o, WaitOp):
                found.append(_top_in(block, o))
            elif isinstance(o, AsyncDotOp) and use.index == 2:
                work.append(o)
    return [o for o in found if o is not None]


def release_after_last_use(block: Block, get: GetOp, consumed: ConsumedOp, views=VIEW_OPS) -> None:
    """Insert `consumed` right after the last op of `block` using the get's tiles, or retiring
    an `mma.async_dot` that reads them (the kernel's own async dots: the wait, not the issue,
    ends the read):

        %d = mma.async_dot %a, %bt, %acc ...     // reads the slot's %a, %bt ...
        %r = mma.wait %d {pending = 0} ...        // ... until here
        aref.consumed %ab[%k] ...
    """
    users = users_in(block, borrowed(block, get, views))
    late = set(users) | set(retiring_waits(block, users))
    users = [op for op in block.ops if op in late]
    block.insert_op_after(consumed, users[-1] if users else get)
