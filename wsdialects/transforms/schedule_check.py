"""Schedules are input, and input is checked (issue 12): the `ws.stage` / `ws.order` /
`ws.warp` attributes of a loop's ops and the loop's `ws.schedule`, whoever wrote them
(the user or `ws-schedule`), are validated before any pass honours them
(ws-specialize, ws-partition, ws-distribute, ws-pipeline-coarse call `check_schedule`).

The rules, for every dependence d -> u between scheduled ops of a loop body (u reads
d's result, possibly through unscheduled ops such as views, or through an aref ring
between the partitions ws-distribute made):

- in the same iteration, u's stage is not before d's: `ws.stage(u) >= ws.stage(d)`;
- in the same stage, u is not ordered before d: `ws.order(u) >= ws.order(d)`;
- across one iteration (u reads d's result of the previous iteration through an
  iter_arg): `ws.stage(d) <= ws.stage(u) + 1`, and when d's stage is u's + 1 (both
  in one steady-state step) d is ordered before u.

Plus the shape of the attributes (checked by wsdialects.attributes, the verifier
that also runs on parsed input) and `ws.warp` one of the schedule's warp groups
0..warps (warps: the variable-latency group). A broken rule
is an error at the op, naming the dependence:

    attention.mlir:31:7: error: schedule: 'math.exp2' is ordered before its operand's producer %s
        ('tile.dot' at 30:7) in stage 0 (ws.order 3 < 6)

Loops that ws-pipeline-coarse already pipelined (`ws.peeled`) are not checked again:
their bodies hold two iterations.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.utils.exceptions import VerifyException

from wsdialects.attributes import CHECKS
from wsdialects.diagnostics import error_at

STAGE, ORDER, WARP, SCHEDULE, PEELED = "ws.stage", "ws.order", "ws.warp", "ws.schedule", "ws.peeled"
_INT_FIELDS = ("II", "L", "warps", "vl_warp", "cooperative", "issuer_warp")


def _where(op: Operation) -> str:
    from wsdialects.diagnostics import location_of

    loc = location_of(op)
    return f" at {loc[1]}:{loc[2]}" if loc else ""


def _name(op: Operation) -> str:
    hint = op.results[0].name_hint if op.results else None
    return f"%{hint} ('{op.name}'{_where(op)})" if hint else f"'{op.name}'{_where(op)}"


def _checked(op: Operation, attr: str):
    """`op`'s attribute `attr` (or None), its type and shape verified by the one
    attribute verifier (wsdialects.attributes) that also runs on parsed input."""
    a = op.attributes.get(attr)
    if a is not None:
        try:
            CHECKS[attr](op, a)
        except VerifyException as e:
            raise error_at(op, f"'{op.name}' {e}") from None
    return a


def _int(op: Operation, attr: str) -> int | None:
    a = _checked(op, attr)
    return None if a is None else a.value.data


def _check_schedule_attr(loop: Operation) -> dict[str, int]:
    info = _checked(loop, SCHEDULE)
    if info is None:
        return {}
    out = {k: v.value.data for k, v in info.data.items() if k in _INT_FIELDS}
    if "issuer_warp" in out:  # ws-schedule{arch=b200}: MMAs on a single-thread issuer warp
        raise error_at(loop, f"schedule: ws.schedule has an issuer warp ({out['issuer_warp']}: tcgen05.mma issued "
                             f"by one thread, accumulators in tensor memory), a Blackwell schedule; the Hopper "
                             f"passes cannot build it (schedule with arch=h100, or drop ws.schedule)")
    if "vl_warp" in out and "warps" in out and not 0 <= out["vl_warp"] <= out["warps"]:
        raise error_at(loop, f"schedule: ws.schedule's vl_warp {out['vl_warp']} is not one of the warp groups "
                             f"0..{out['warps']}")
    return out


class _Bodies:
    """The loop bodies whose top-level ops carry a schedule, and the rings between them."""

    def __init__(self, loops: list[Operation]):
        self.blocks: dict[Block, Operation] = {loop.regions[0].block: loop for loop in loops}
        self.puts: dict[SSAValue, list[Operation]] = {}
        for block in self.blocks:
            for o in block.ops:
                if o.name == "aref.put":
                    self.puts.setdefault(o.operands[0], []).append(o)

    def top(self, v: SSAValue) -> Operation | None:
        """The top-level op of a checked body that defines `v`."""
        if not isinstance(v, OpResult):
            return None
        op: Operation | None = v.op
        while op is not None and op.parent_block() not in self.blocks:
            op = op.parent_op()
        return op

    def producers(self, u: Operation) -> list[tuple[Operation, int]]:
        """The scheduled ops whose results `u` reads, with the iteration distance (0 or 1)."""
        work = [(v, 0) for inner in u.walk() for v in inner.operands]
        seen: set = set()
        out = []
        while work:
            v, dist = work.pop()
            if (v, dist) in seen:
                continue
            seen.add((v, dist))
            if isinstance(v, BlockArgument):
                loop = self.blocks.get(v.block)
                if loop is not None and v.index > 0 and dist == 0:
                    work.append((v.block.last_op.operands[v.index - 1], 1))
                continue
            d = self.top(v)
            if d is None or d is u and dist == 0:
                continue
            if _int(d, STAGE) is not None or _int(d, ORDER) is not None:
                out.append((d, dist))
            elif d.name == "aref.get" and v.op is d:  # the value the other partition put: same iteration
                work += [(p.operands[2 + v.index], dist) for p in self.puts.get(d.operands[0], [])]
            else:
                work += [(x, dist) for inner in d.walk() for x in inner.operands]
        return out


def _check_dependence(d: Operation, u: Operation, dist: int) -> None:
    sd, su, od, ou = _int(d, STAGE), _int(u, STAGE), _int(d, ORDER), _int(u, ORDER)
    what = f"'{u.name}'"
    if dist == 0:
        if sd is not None and su is not None and su < sd:
            raise error_at(u, f"schedule: {what} is in an earlier stage than its operand's producer {_name(d)} "
                              f"(ws.stage {su} < {sd})")
        if (sd is None or su is None or sd == su) and od is not None and ou is not None and ou < od:
            raise error_at(u, f"schedule: {what} is ordered before its operand's producer {_name(d)} in stage "
                              f"{su if su is not None else 0} (ws.order {ou} < {od})")
        return
    if sd is not None and su is not None:
        if sd > su + 1:
            raise error_at(u, f"schedule: {what} reads the previous iteration's result of {_name(d)}, which runs "
                              f"{sd - su} stages later (ws.stage {su} + 1 < {sd})")
        if sd == su + 1 and od is not None and ou is not None and ou <= od:
            raise error_at(u, f"schedule: {what} reads the previous iteration's result of {_name(d)}, computed "
                              f"in the same steady-state step after it (ws.stage {su} + 1 = {sd}, ws.order "
                              f"{ou} <= {od})")


def check_schedule(module: Operation) -> None:
    """Raise a located WsError for the first schedule attribute that cannot be honoured."""
    for fn in [o for o in module.walk() if o.name == "func.func"]:
        loops = []
        for loop in [o for o in fn.walk() if o.name == "scf.for"]:
            sched = _check_schedule_attr(loop)
            block = loop.regions[0].block
            marked = [o for o in block.ops if any(a in o.attributes for a in (STAGE, ORDER, WARP))]
            for o in marked:
                for a in (STAGE, ORDER, WARP):
                    _int(o, a)
                w = _int(o, WARP)
                if w is not None and "warps" in sched and not 0 <= w <= max(sched["warps"], sched.get("vl_warp", 0)):
                    raise error_at(o, f"schedule: '{o.name}' has ws.warp = {w}, but the loop's schedule has warp "
                                      f"groups 0..{max(sched['warps'], sched.get('vl_warp', 0))}")
            if marked and PEELED not in loop.attributes:
                loops.append(loop)
        if not loops:
            continue
        bodies = _Bodies(loops)
        for block in bodies.blocks:
            for u in block.ops:
                if _int(u, STAGE) is None and _int(u, ORDER) is None:
                    continue
                for d, dist in bodies.producers(u):
                    _check_dependence(d, u, dist)
