"""`ws-pingpong`: the groups of a cooperative team take turns on the tensor core
(FlashAttention-3's ping-pong schedule; Twill §6 finds it from the tensor core's capacity).

After `ws-cooperative{groups=G}` the G groups of a consumer run the same code on their
own rows and, left alone, issue their MMAs at the same time and then all run their
softmax at the same time, so the tensor core idles while every group computes. This pass
brackets each run of MMA issues (`mma.async_dot` ops not separated by a wait, a store, a
put or a region) with `warp_group.turn_wait` / `warp_group.turn_pass`: group g issues its
MMAs only after group g - 1 has issued its own, then hands the turn on, so one group's
exponentials overlap the next group's MMAs. Slot acquisitions (`aref.get`) and pure ops
inside a run that do not need its MMAs move in front of the bracket: a group never waits
for data while it holds the turn. Group G - 1 passes the first turn to group 0 when it
starts, and group 0 takes the last one back when it ends, so every `turn_pass` meets one
`turn_wait`.

    warp_group.partition 1 consumer0 ... {            warp_group.partition 1 consumer0 ... {
      %k = aref.get %rk[%j] ...                         %k = aref.get %rk[%j] ...
      %s = mma.async_dot %q, %kt, %z ...                %v = aref.get %rv[%i] ...
      %v = aref.get %rv[%i] ...              ==>        warp_group.turn_wait 0 of 2
      %o = mma.async_dot %p, %v, %acc ...               %s = mma.async_dot %q, %kt, %z ...
      %s1 = mma.wait %s {pending = 1} ...               %o = mma.async_dot %p, %v, %acc ...
                                                        warp_group.turn_pass 0 of 2
                                                        %s1 = mma.wait %s {pending = 1} ...
                                                        ...
                                                        warp_group.turn_wait 0 of 2   (at the end)

The groups of a team are found from their `warp_group.share` / `gather` ops (`g of G`);
a region with no cooperative team, or a team with no MMA to order, is left unchanged
with a remark; a region with more than one team is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from wsdialects.aref import GetOp
from wsdialects.diagnostics import error_at
from wsdialects.mma import AsyncDotOp
from wsdialects.transforms.partition import kernels, remark
from wsdialects.warp_group import GatherOp, PartitionOp, RegionOp, ShareOp, TurnPassOp, TurnWaitOp

# Ops that only compute values: they may sit inside a turn, or move in front of it.
_PURE_DIALECTS = ("arith.", "math.")
_PURE_OPS = {"tile.trans", "tile.expand_dims", "tile.broadcast", "tile.splat", "tile.make_range", "tile.reduce",
             "warp_group.share"}


def _pure(op: Operation) -> bool:
    return not op.regions and (op.name in _PURE_OPS or op.name.startswith(_PURE_DIALECTS))


def team_of(region: RegionOp) -> dict[int, PartitionOp]:
    """Group index -> partition of the cooperative team in `region` (empty: none)."""
    team: dict[int, PartitionOp] = {}
    size = 0
    for part in region.partitions:
        marks = {(o.group.value.data, o.groups.value.data) for o in part.body.walk()
                 if isinstance(o, ShareOp | GatherOp) and o.groups.value.data > 1}
        if not marks:
            continue
        if len(marks) > 1:
            groups = _prose([f"group {g} of {n}" for g, n in sorted(marks)])
            raise error_at(part, f"ws-pingpong: partition {part.pid} is a member of several cooperative groups "
                                 f"({groups})")
        (g, n), = marks
        if g in team or (size and n != size):
            raise error_at(part, f"ws-pingpong: the region holds more than one cooperative team (partition "
                                 f"{part.pid} is group {g} of {n}); ping-pong orders the groups of one team")
        team[g], size = part, n
    if team and sorted(team) != list(range(size)):
        missing = _prose([str(g) for g in range(size) if g not in team]) or "none"
        extra = [str(g) for g in sorted(team) if g >= size]
        raise error_at(region, f"ws-pingpong: the cooperative team of {size} groups has no partition for group "
                               f"{missing}" + (f" and one for group {_prose(extra)}, outside it" if extra else ""))
    return team


def _prose(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _issue_runs(block: Block) -> list[list[Operation]]:
    """Maximal runs of `mma.async_dot` issues in `block` and in the blocks nested in it:
    from one async dot to the last one before an op that waits, stores, puts or holds
    regions (slot gets and pure ops may sit in between)."""
    runs: list[list[Operation]] = []
    ops = list(block.ops)
    i = 0
    while i < len(ops):
        op = ops[i]
        if op.regions:
            for r in op.regions:
                for b in r.blocks:
                    runs.extend(_issue_runs(b))
        if not isinstance(op, AsyncDotOp):
            i += 1
            continue
        last = j = i
        while j + 1 < len(ops):
            j += 1
            nxt = ops[j]
            if isinstance(nxt, AsyncDotOp):
                last = j
            elif not (isinstance(nxt, GetOp) or _pure(nxt)):
                break
        runs.append(ops[i:last + 1])
        i = last + 1
    return runs


def _bracket(run: list[Operation], g: int, n: int) -> None:
    """Move what the run's MMAs do not need in front of it, then bracket the MMAs."""
    first = run[0]
    block = first.parent_block()
    staying: set[Operation] = set()
    for op in run:
        needs_run = any(isinstance(v.owner, Operation) and v.owner in staying for v in op.operands)
        if isinstance(op, AsyncDotOp) or needs_run:
            staying.add(op)
        elif op is not first:
            op.detach()
            block.insert_op_before(op, first)
    block.insert_op_before(TurnWaitOp(g, n), first)
    last = [o for o in run if o in staying][-1]
    block.insert_op_after(TurnPassOp(g, n), last)


def order_team(team: dict[int, PartitionOp]) -> int:
    """Bracket every MMA issue run of each group; returns the number of runs per group."""
    n = len(team)
    runs = {g: _issue_runs(part.body.block) for g, part in team.items()}
    counts = sorted({len(r) for r in runs.values()})
    if len(counts) != 1:
        raise error_at(team[0], f"ws-pingpong: the groups of the team issue different numbers of MMA runs "
                                f"{counts}; their code must be the same")
    for g, part in team.items():
        for run in runs[g]:
            _bracket(run, g, n)
        body = part.body.block
        if g == n - 1:  # the last group starts holding the turn: it hands it to group 0
            if body.first_op is None:
                body.add_op(TurnPassOp(g, n))
            else:
                body.insert_op_before(TurnPassOp(g, n), body.first_op)
        if g == 0:  # group 0 takes back the last group's final turn
            body.add_op(TurnWaitOp(g, n))
    return counts[0]


@dataclass(frozen=True)
class PingPongPass(ModulePass):
    """Order the MMA issues of a cooperative team's groups round-robin (named-barrier turns)."""

    name = "ws-pingpong"

    def apply(self, ctx, op: ModuleOp) -> None:
        regions = [o for o in op.walk() if isinstance(o, RegionOp)]
        if not regions:
            found = kernels(op)
            if not found:  # no tile kernel: nothing to order
                return
            raise error_at(found[0], "ws-pingpong: no warp_group.region (run ws-specialize{cooperative=2} first)")
        for region in regions:
            if any(isinstance(o, TurnWaitOp | TurnPassOp) for o in region.walk()):
                continue  # already ordered
            team = team_of(region)
            if not team:
                remark(region, "ws-pingpong: no cooperative team to order (ws-cooperative{groups=G} splits a "
                               "consumer into G groups first)")
                continue
            if not any(isinstance(o, AsyncDotOp) for o in team[0].body.walk()):
                remark(team[0], "ws-pingpong: the cooperative groups issue no asynchronous MMA (mma.async_dot); "
                                "nothing to order")
                continue
            order_team(team)
