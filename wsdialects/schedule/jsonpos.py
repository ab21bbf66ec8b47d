"""Where a value sits in a JSON text, for located diagnostics.

``json.loads`` keeps no positions, so a graph that is valid JSON but not a
valid graph (an unknown op in ``edges[3].from``) would be reported without a
line.  :func:`locate` walks the text once more, without recursion, and returns
the ``(line, col)`` of the member named by a path of keys and indices:

    >>> locate('{"ops": [{"name": 1}]}', ("ops", 0, "name"))
    (1, 11)

For an object member the position is that of its key; for an array element,
that of the element; for the empty path, the document's first value.
"""

from __future__ import annotations

import json
import re

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERAL = re.compile(r"true|false|null|NaN|-?Infinity")
_SPACE = re.compile(r"[ \t\n\r]*")


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def locate(text: str, path: tuple) -> tuple[int, int] | None:
    """``(line, col)`` of the member at ``path`` in valid JSON ``text``, or of
    its closest enclosing member that exists; None if the text cannot be walked."""
    path = tuple(path)
    best = None  # the longest prefix of path found so far: (length, position)
    # Each frame: [kind ('{' or '['), key or index of the current member, state]
    stack: list[list] = []
    pos = _SPACE.match(text, 0).end()

    def here() -> tuple:
        return tuple(f[1] for f in stack)

    def note(at: int) -> None:
        nonlocal best
        cur = here()
        if path[: len(cur)] == cur and (best is None or len(cur) > best[0]):
            best = (len(cur), at)

    note(pos)
    try:
        while pos < len(text):
            ch = text[pos]
            frame = stack[-1] if stack else None
            if frame is not None and frame[0] == "{" and frame[2] == "key":
                if ch == "}":
                    stack.pop()
                    pos += 1
                    _after_value(stack)
                elif ch == '"':
                    key_at = pos
                    key, pos = json.decoder.scanstring(text, pos + 1)
                    frame[1], frame[2] = key, "colon"
                    note(key_at)
                elif ch == ",":
                    pos += 1
                else:
                    return None
            elif frame is not None and frame[0] == "{" and frame[2] == "colon":
                if ch != ":":
                    return None
                frame[2] = "value"
                pos += 1
            elif ch in "]}":
                stack.pop()
                pos += 1
                _after_value(stack)
            elif ch == ",":
                if frame is None:
                    return None
                if frame[0] == "[":
                    frame[1] += 1
                    note(_SPACE.match(text, pos + 1).end())
                pos += 1
            else:  # a value
                if ch in "{[":
                    stack.append([ch, 0 if ch == "[" else None, "key"])
                    pos = _SPACE.match(text, pos + 1).end()
                    if ch == "[" and pos < len(text) and text[pos] != "]":
                        note(pos)  # the first element
                    continue
                if ch == '"':
                    _, pos = json.decoder.scanstring(text, pos + 1)
                else:
                    m = _NUMBER.match(text, pos) or _LITERAL.match(text, pos)
                    if m is None or m.end() == pos:
                        return None
                    pos = m.end()
                _after_value(stack)
            pos = _SPACE.match(text, pos).end()
    except (ValueError, IndexError):
        return None
    return None if best is None else _line_col(text, best[1])


def _after_value(stack: list[list]) -> None:
    """A member's value ended: an object expects its next key."""
    if stack and stack[-1][0] == "{":
        stack[-1][2] = "key"
