"""How wsdialects reports: the one error type every entry point raises for bad input
(`WsError`, printed `file:line:col: error: message`), the source location of an op, and the
remarks and warnings a pass emits on the way (printed on stderr, or collected by a driver).

A leaf of the package (it imports only xDSL): the dialects' verifiers, the passes and the
parser all report through it, and `wsdialects.diagnostics`, which parses and verifies (and so
imports the dialects), re-exports it, so neither has to import the other's side.

    raise error_at(op, "'tile.dot' reduction dims differ")   # gemm.mlir:12:5: error: ...
    remark(op, "pipelined 3 deep")                           # gemm.mlir:12:5: remark: ...
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation


class WsError(Exception):
    """Bad input, with the closest source location there is."""

    def __init__(self, message: str, file: str = "<stdin>", line: int = 0, col: int = 0):
        super().__init__(message)
        self.message, self.file, self.line, self.col = message, file, line, col

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.col}: error: {self.message}"
        return f"{self.file}: error: {self.message}"


class PassDefect(WsError):
    """A pass left IR that does not verify: a compiler defect (ws-opt exits 2)."""

    exit_code = 2


def location_of(op: Operation) -> tuple[str, int, int] | None:
    """(file, line, col) of `op`, or of its closest located ancestor."""
    cur: Operation | None = op
    while cur is not None:
        loc = cur.location
        if isinstance(loc, FileLineColLoc):
            return loc.filename.data, loc.line.data, loc.column.data
        cur = cur.parent_op()
    return None


# Where remarks and warnings go: stderr, unless a driver collects them (ws-opt
# --verify-diagnostics matches them against `expected-*` comments).
_collectors: list[list[tuple[str, tuple[str, int, int] | None, str]]] = []


@contextmanager
def collect_notes():
    """Collect the remarks and warnings emitted inside the block, as
    (severity, (file, line, col) or None, message), instead of printing them."""
    notes: list[tuple[str, tuple[str, int, int] | None, str]] = []
    _collectors.append(notes)
    try:
        yield notes
    finally:  # by identity: list.remove compares by value, and an outer collector may be equal
        del _collectors[next(i for i, c in enumerate(_collectors) if c is notes)]


def note(op: Operation, severity: str, message: str) -> None:
    """Print `FILE:LINE:COL: severity: message` (a remark or a warning: the compilation goes
    on) on stderr, at `op` or its closest located ancestor."""
    note_at(location_of(op), severity, message)


def note_at(loc: tuple[str, int, int] | None, severity: str, message: str) -> None:
    """`note` at a (file, line, col) location (None: unlocated)."""
    if _collectors:
        _collectors[-1].append((severity, loc, message))
        return
    where = f"{loc[0]}:{loc[1]}:{loc[2]}: " if loc else ""
    print(f"{where}{severity}: {message}", file=sys.stderr)


def remark(op: Operation, message: str) -> None:
    note(op, "remark", message)


def warning(op: Operation, message: str) -> None:
    note(op, "warning", message)


def error_at(op: Operation, message: str, default_file: str = "<input>") -> WsError:
    loc = location_of(op)
    if loc is None:
        return WsError(message, default_file)
    return WsError(message, *loc)


def numbered(noun: str, items) -> str:
    """A noun and its numbers in words, for messages (never a Python list):
    ("group", [1]) -> "group 1", [1, 2] -> "groups 1 and 2", [0, 1, 3] -> "groups 0, 1 and 3"."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return f"{noun} {items[0]}" if items else f"no {noun}"
    return f"{noun}s {', '.join(items[:-1])} and {items[-1]}"


def counted(n: int, noun: str) -> str:
    """A count and its noun, singular or plural, for messages (never "noun(s)"):
    (1, "partition") -> "1 partition", (2, "time") -> "2 times"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
