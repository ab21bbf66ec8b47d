"""Triton's `loc(...)` locations, turned into the user's Python file:line:col.

Triton prints a location after every op, mostly through aliases defined before and
after the module (an alias may be used before its definition):

    #loc = loc("/home/u/kernel.py":6:1)
    ...
      %acc = tt.dot %a, %b, %c ... loc(#loc55)
    } loc(#loc)
    #loc16 = loc("/home/u/kernel.py":12:15)
    #loc55 = loc("acc"(#loc16))                       // a named location: the variable
    #loc63 = loc(callsite(#loc3 at #loc44))            // tl.zeros inlined from standard.py
    #loc3 = loc("/.../site-packages/triton/language/standard.py":155:12)

An op's location becomes the innermost frame that lies in the user's code: a name
location gives its child, a `callsite(callee at caller)` the callee if it is the user's
and otherwise the caller (Triton's own library, `triton/language/...`, is never the
user's), a `fused[...]` its first user frame. Triton's columns are 1-based, as ours.
`loc(unknown)` gives nothing; the import then uses the enclosing op's location.

`AliasTable` collects the alias definitions from the text (blanking them, so that the
parser, which reads aliases only before their use and no `loc` attribute aliases,
never sees them) and resolves each alias once.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    NameLoc,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute

_ALIAS_DEF = re.compile(r"^#([\w.$-]+)[ \t]*=[ \t]*loc\(", re.M)
# Triton's own Python sources: frames there are library code, not the user's kernel. Its
# subpackages are recognised anywhere (an installed or a source-checkout Triton, or the
# `triton/language/...` that tools/regen_ttir.py makes of them); its top-level modules only
# at the start of the path or inside site-/dist-packages, so that a user's own
# `examples/triton/kernel.py` stays the user's.
_LIBRARY = re.compile(r"(^|[/\\])triton[/\\](language|runtime|compiler|experimental|tools|_utils)[/\\]|"
                      r"(^|[/\\](site|dist)-packages[/\\])triton[/\\][\w]+\.py$")


def is_library_file(path: str) -> bool:
    """Whether `path` is one of Triton's own Python files (triton/language/standard.py, ...)."""
    return bool(_LIBRARY.search(path))


def _closing_paren(text: str, start: int) -> int:
    """Index just past the `)` that closes the `(` before `start` (string literals skipped)."""
    depth, i, n = 1, start, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


class AliasTable:
    """The `#name = loc(...)` definitions of one TTIR text: `blanked` is the text without them
    (same length, same line numbers); `texts` maps each alias to its location text."""

    def __init__(self, text: str):
        self.texts: dict[str, str] = {}
        self.resolved: dict[str, Attribute] = {}
        out, last = [], 0
        for m in _ALIAS_DEF.finditer(text):
            end = _closing_paren(text, m.end())
            if end < 0 or m.start() < last:
                continue
            self.texts[m.group(1)] = text[m.end() - len("loc("):end]
            out.append(text[last:m.start()])
            out.append(re.sub(r"[^\n]", " ", text[m.start():end]))
            last = end
        out.append(text[last:])
        self.blanked = "".join(out)


def user_frame(loc: Attribute) -> FileLineColLoc | None:
    """The innermost frame of `loc` in the user's code, or None (unknown, or Triton's own code only)."""
    if isinstance(loc, FileLineColLoc):
        return None if is_library_file(loc.filename.data) else loc
    if isinstance(loc, NameLoc):
        return user_frame(loc.location)
    if isinstance(loc, CallSiteLoc):
        return user_frame(loc.callee) or user_frame(loc.caller)
    if isinstance(loc, FusedLoc):
        for sub in loc.locations:
            found = user_frame(sub)
            if found is not None:
                return found
    return None


def python_location(loc: Attribute) -> FileLineColLoc | None:
    """Where in the user's Python source `loc` points (None: unknown or only Triton's code).
    Triton gives a function's own location column 0; it becomes column 1 (columns are 1-based)."""
    found = user_frame(loc)
    if found is not None and found.column.data == 0:
        return plain_location(found.filename.data, found.line.data, 1)
    return found


def plain_location(file: str, line: int, col: int) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))


__all__ = ["AliasTable", "UnknownLoc", "is_library_file", "plain_location", "python_location", "user_frame"]
