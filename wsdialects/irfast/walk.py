"""`Operation.walk`, `Region.walk`, `Block.walk` as one generator each instead of one per
op, region and block (xDSL 0.74's walk nests a generator per level: an op six levels deep
passes through ~18 `yield from`s). The same order and the same laziness: each level's
iterator (the op's `regions` tuple, `Region.blocks`, `Block.ops`, reversed where asked) is
made, and advanced, at the moment xDSL's generator would make and advance it, so a walk
that changes the IR as it goes (erases the op it is at, inserts after it, ...) sees what
xDSL's walk sees (test_irfast: the same ops under such changes)."""

from __future__ import annotations

_DONE = object()
# stack entries: (0, iterator over an op's regions, the op), (1, iterator over a region's
# blocks, None), (2, iterator over a block's ops, None)


def _run(stack: list, reverse: bool, region_first: bool):
    while stack:
        kind, it, op = stack[-1]
        nxt = next(it, _DONE)
        if nxt is _DONE:
            stack.pop()
            if kind == 0 and region_first:
                yield op
            continue
        if kind == 2:  # an op of a block: Operation.walk
            if type(nxt).walk is not operation_walk:  # a class with its own walk: its own
                yield from nxt.walk(reverse=reverse, region_first=region_first)
                continue
            if not region_first:
                yield nxt
            regions = nxt.regions
            if regions:
                stack.append((0, reversed(regions) if reverse else iter(regions), nxt))
            elif region_first:
                yield nxt
        elif kind == 1:  # a block of a region: Block.walk
            if type(nxt).walk is not block_walk:
                yield from nxt.walk(reverse=reverse, region_first=region_first)
                continue
            stack.append((2, reversed(nxt.ops) if reverse else iter(nxt.ops), None))
        else:  # a region of an op: Region.walk
            if type(nxt).walk is not region_walk:
                yield from nxt.walk(reverse=reverse, region_first=region_first)
                continue
            stack.append((1, reversed(nxt.blocks) if reverse else iter(nxt.blocks), None))


def operation_walk(self, *, reverse: bool = False, region_first: bool = False):
    """`Operation.walk`: this op and every op nested in it, the op before its regions (after
    them with `region_first`), regions, blocks and ops last to first with `reverse`."""
    if not region_first:
        yield self
    regions = self.regions
    if regions:
        yield from _run([(0, reversed(regions) if reverse else iter(regions), self)], reverse, region_first)
    elif region_first:
        yield self


def region_walk(self, *, reverse: bool = False, region_first: bool = False):
    """`Region.walk`: every op nested in the region, in `operation_walk`'s order."""
    yield from _run([(1, reversed(self.blocks) if reverse else iter(self.blocks), None)], reverse, region_first)


def block_walk(self, *, reverse: bool = False, region_first: bool = False):
    """`Block.walk`: every op of the block and nested in it, in `operation_walk`'s order."""
    yield from _run([(2, reversed(self.ops) if reverse else iter(self.ops), None)], reverse, region_first)
