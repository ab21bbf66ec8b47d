"""The static synchronization check (`ws-verify-sync`; ws-specialize and ws-hopper run it
after their passes): a warp-specialized kernel whose partitions would deadlock, race on
an aref slot or leave a barrier unbalanced is a compiler defect, reported at the op.

- `skeleton`: each partition's sequence of synchronizing ops for sampled scalar inputs;
- `rules`: what must hold of one region (aref rings, cooperative teams, mbarriers and
  named barriers), statically and per trace;
- `simulate`: the partitions' traces run against each other (aref, mbarrier and
  named-barrier semantics) to find a deadlock and the wait cycle behind it;
- `check`: the entry point, `check_sync(module)`.
"""

from __future__ import annotations

from xdsl.ir import Operation

from wsdialects.diagnostics import location_of


class Violation(Exception):
    """A synchronization defect at `op`."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op, self.message = op, message


class Fault(Violation):
    """The kernel itself is undefined at `op` for the values the check follows (an integer
    division by zero in a loop bound or slot index): the user's defect, not a pass's."""


def name_of(op: Operation) -> str:
    """`%hint` of the value an op creates (a ring, an mbarrier array), else the op's name."""
    if op.results and op.results[0].name_hint:
        return f"%{op.results[0].name_hint}"
    return f"'{op.name}'"


def at(op: Operation) -> str:
    """Where `op` is, for a message that also names other ops: `12:7`."""
    loc = location_of(op)
    return f"{loc[1]}:{loc[2]}" if loc else "?"
