"""IR listings for the pass reference: long spellings folded into aliases, and a pass's
output shown as what it changed.

- `fold_aliases`: a dialect type or attribute spelled out many times
  (`!tile.desc<tensor<64x64xf16>>`) becomes an MLIR alias (`!desc`) defined once at the top of
  the listing, the way MLIR's own printer names `#blocked` or `#shared`. The folded text is
  parsed back and printed again: it must give the very IR it came from, so a folding that
  changed the meaning is an error, never a wrong page.
- `changed_view`: the output against the input, line by line, indentation aside (an op moved
  into a new region is unchanged, not deleted and added). Unchanged runs away from a change
  fold into one `// ... N unchanged lines` line; as a diff (`-` input, `+` output, for a
  pass that edits a few lines), or as the output alone (for a pass that rewrites most lines,
  where a diff would print everything twice).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from wsdialects.diagnostics import WsError, collect_notes, parse_text
from wsdialects.docgen.examples import DocError

# the start of a dialect type or attribute (`!tile.desc<`, `#layout.wgmma<`), or of a memref
_DIALECT_SPELLING = re.compile(r"[!#][A-Za-z_][\w$]*\.(?P<mnemonic>[A-Za-z_][\w$]*)<|(?<![\w!#.])(?P<builtin>memref)<")
_MIN_LENGTH = 16  # shorter spellings read better written out
_MIN_SAVING = 40  # characters an alias must save over its own definition
_LONG_CONTEXT = 120  # characters: an unchanged line this long is no help as context


def print_ir(module: ModuleOp) -> str:
    """The module as `ws-opt` prints it."""
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue().rstrip() + "\n"


def unwrap(text: str) -> str:
    """A printed module without its `builtin.module {` wrapper (its ops, dedented), where the
    module has no attributes: the ops parse back into the same module."""
    lines = text.rstrip("\n").splitlines()
    if lines[0] != "builtin.module {" or lines[-1] != "}":
        return text
    return "\n".join(ln[2:] for ln in lines[1:-1]) + "\n"


def _spellings(text: str) -> list[tuple[str, str]]:
    """(spelling, mnemonic) of every dialect type or attribute in `text`, nested ones too."""
    found = []
    for m in _DIALECT_SPELLING.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "<":
                depth += 1
            elif text[i] == ">" and text[i - 1] != "-":  # `->` is no bracket
                depth -= 1
                if depth == 0:
                    found.append((text[m.start(): i + 1], m["mnemonic"] or m["builtin"]))
                    break
            elif text[i] == "\n":
                break
            i += 1
    return found


@dataclass
class Folded:
    """Texts with their long repeated spellings folded; `aliases` are the definitions."""

    aliases: list[str]
    texts: list[str]


def fold_aliases(texts: list[str], file: str) -> Folded:
    """Fold the spellings repeated across `texts` (one alias set for all, so that they read
    alike) into aliases; each folded text is checked to parse back into the same IR."""
    count: Counter[str] = Counter()
    mnemonic: dict[str, str] = {}
    for text in texts:
        for spelling, mn in _spellings(text):
            count[spelling] += 1
            mnemonic.setdefault(spelling, mn)
    chosen: dict[str, str] = {}  # spelling -> alias, in order of first appearance
    used: Counter[str] = Counter()
    first = "\n".join(texts)
    for spelling in sorted(count, key=first.find):
        if len(spelling) < _MIN_LENGTH:
            continue
        mn = mnemonic[spelling]
        name = ("#" if spelling[0] == "#" else "!") + mn + (str(used[mn]) if used[mn] else "")
        if count[spelling] * (len(spelling) - len(name)) - len(f"{name} = {spelling}\n") < _MIN_SAVING:
            continue
        used[mn] += 1
        chosen[spelling] = name
    # longest first: an alias inside a longer spelling folds after the longer one is done
    order = sorted(chosen, key=len, reverse=True)
    folded = []
    for text in texts:
        for spelling in order:
            text = text.replace(spelling, chosen[spelling])
        folded.append(text)
    # a definition may itself use a shorter alias
    aliases = []
    for spelling, name in chosen.items():
        body = spelling
        for other in order:
            if other != spelling and len(other) < len(spelling):
                body = body.replace(other, chosen[other])
        aliases.append(f"{name} = {body}")
    result = Folded(aliases, folded)
    for original, text in zip(texts, folded):
        if text != original:
            _check_same_ir(original, "\n".join(aliases) + "\n" + text, file)
    return result


def _check_same_ir(original: str, folded: str, file: str) -> None:
    try:
        with collect_notes():  # the input's own remarks and warnings belong to its example
            again = unwrap(print_ir(parse_text(folded, file)))
    except WsError as e:
        raise DocError(f"{file}: a listing with aliases does not parse: {e}") from None
    if again != original:
        raise DocError(f"{file}: a listing with aliases is not the IR it was folded from")


def changed_view(before: str, after: str, context: int = 1, deletions: bool = True) -> list[str]:
    """`after` against `before` as a diff (indentation aside): lines prefixed ` `, `-` or `+`,
    unchanged runs folded into `// ... N unchanged lines` but for `context` lines on each side
    of a change. Without `deletions`, the `-` lines are left out: the output alone, with the
    lines the pass wrote marked."""
    old, new = before.rstrip("\n").splitlines(), after.rstrip("\n").splitlines()
    ops = SequenceMatcher(None, [ln.strip() for ln in old], [ln.strip() for ln in new],
                          autojunk=False).get_opcodes()
    out: list[str] = []
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "equal":
            if deletions:
                out += ["-" + ln for ln in old[i1:i2]]
            elif tag == "delete":
                out.append(f"-{_indent(old[i1])}// ... {i2 - i1} lines removed")
            out += ["+" + ln for ln in new[j1:j2]]
            continue
        run = new[j1:j2]
        head = context if k > 0 else 0
        tail = context if k < len(ops) - 1 else 0
        while head and any(len(ln) > _LONG_CONTEXT for ln in run[:head]):
            head -= 1
        while tail and any(len(ln) > _LONG_CONTEXT for ln in run[len(run) - tail:]):
            tail -= 1
        if len(run) - head - tail < 2:  # a marker for one line saves nothing
            out += [" " + ln for ln in run]
            continue
        hidden = run[head: len(run) - tail]
        out += [" " + ln for ln in run[:head]]
        out.append(f" {_indent(hidden[0])}// ... {len(hidden)} unchanged lines")
        out += [" " + ln for ln in run[len(run) - tail:]]
    return fold_copies(out)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


_VALUE = re.compile(r"%[\w$.-]+")
_MIN_COPY = 4  # lines: a shorter copy reads better written out


def _renamed(a: str, b: str, names: dict[str, str], back: dict[str, str]) -> bool:
    """Whether line `b` is line `a` with its values renamed consistently with `names`
    (b's name -> a's) and `back` (the inverse); extends both when it is."""
    if _VALUE.sub("%", a.strip()) != _VALUE.sub("%", b.strip()):
        return False
    for x, y in zip(_VALUE.findall(a), _VALUE.findall(b)):
        if names.setdefault(y, x) != x or back.setdefault(x, y) != y:
            return False
    return True


def fold_copies(lines: list[str]) -> list[str]:
    """A run of added lines that repeats lines shown above it (the same ops on other values,
    consistently renamed: a partition's copy of what another partition got) folds into one
    `// ... N lines: the N from %x = op above, values renamed` line."""
    out = list(lines)
    shown = [not ln.startswith("-") and "// ..." not in ln for ln in out]
    j = 0
    while j < len(out):
        best, source = 0, -1
        if out[j].startswith("+"):
            for s in range(j):
                names: dict[str, str] = {}
                back: dict[str, str] = {}
                k = 0
                while (s + k < j and j + k < len(out) and shown[s + k] and out[j + k].startswith("+")
                       and "// ..." not in out[j + k] and _renamed(out[s + k][1:], out[j + k][1:], names, back)):
                    k += 1
                if k > best:
                    best, source = k, s
        if best >= _MIN_COPY:
            first = out[source][1:].strip()
            op = first.split(" ", 3)[:3] if first.startswith("%") else first.split(" ", 1)[:1]
            out[j: j + best] = [f"+{_indent(out[j][1:])}// ... {best} lines: the {best} from `{' '.join(op)}` "
                                "above, values renamed"]
            shown[j: j + best] = [False]
        j += 1
    return out
