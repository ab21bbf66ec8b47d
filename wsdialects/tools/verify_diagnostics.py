"""`ws-opt --verify-diagnostics`: MLIR's `expected-*` comments checked against the
diagnostics a run produced.

    %x = tile.splat %f : f32 -> tensor<4xi32>   // expected-error {{element type i32}}
    // expected-error@+1 {{operand #0 does not dominate this use}}
    // expected-warning@-2 {{...}}   expected-remark@above   expected-note@below   @unknown
    // expected-error-re {{got {{[0-9]+}} values}}   (`{{...}}` inside the message: a regex)

A directive expects a diagnostic of that severity whose message contains the text, at
the directive's line (`@+N` / `@-N` lines below / above it, `@above` / `@below` the
closest line without a directive, `@unknown` a diagnostic with no location). The run
passes (exit 0) when every expected diagnostic was produced and nothing else was;
each mismatch is reported located, as mlir-opt does:

    k.mlir:7:6: error: expected error "element type" was not produced
    k.mlir:9:3: error: unexpected warning: ws-partition did nothing: ...

With `--split-input-file` (MLIR's invalid-input test layout) the input is cut at each
line `// -----`; every part is parsed, run, emitted and checked by itself, with its
lines numbered as in the whole file. Outputs are joined with `// -----`; the run exits 1
when any part failed, after running the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIRECTIVE = re.compile(r"expected-(error|warning|remark|note)(-re)?[ \t]*"
                        r"(?:@([+-][0-9]+|above|below|unknown))?[ \t]*\{\{(.*)\}\}[ \t]*$")


@dataclass
class Diagnostic:
    """One diagnostic a run produced; `line` 0 when it has no location in the input."""

    severity: str
    line: int
    col: int
    message: str


@dataclass
class Expected:
    severity: str
    line: int  # 0: @unknown
    text: str
    regex: re.Pattern | None
    at: tuple[int, int]  # where the directive is written
    seen: bool = False

    def matches(self, d: Diagnostic) -> bool:
        if d.severity != self.severity or d.line != self.line:
            return False
        return bool(self.regex.search(d.message)) if self.regex else self.text in d.message


def _regex(text: str) -> re.Pattern:
    """MLIR's -re text: literal, except the `{{...}}` parts, which are regular expressions."""
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts += [re.escape(text[pos:m.start()]), f"(?:{m.group(1)})"]
        pos = m.end()
    return re.compile("".join(parts) + re.escape(text[pos:]))


def expectations(text: str, file: str) -> list[Expected]:
    """The `expected-*` directives of `text` (lines counted from 1, as in the input)."""
    out: list[Expected] = []
    below: list[Expected] = []
    last_plain = 0
    for n, line in enumerate(text.split("\n"), start=1):
        found = False
        for m in _DIRECTIVE.finditer(line):
            found = True
            sev, is_re, where, msg = m.groups()
            try:
                regex = _regex(msg) if is_re else None
            except re.error as e:
                from wsdialects.diagnostics import WsError

                raise WsError(f"bad regular expression in expected-{sev}-re: {e}", file, n, m.start() + 1) from None
            e = Expected(sev, n, msg, regex, (n, m.start() + 1))
            if where is None:
                pass
            elif where == "unknown":
                e.line = 0
            elif where == "above":
                e.line = last_plain
            elif where == "below":
                below.append(e)
            else:
                e.line = n + int(where)
            out.append(e)
        if not found:
            for e in below:
                e.line = n
            below.clear()
            last_plain = n
    return out


def check(file: str, expected: list[Expected], produced: list[Diagnostic]) -> list[str]:
    """The mismatches, as located error lines (empty: the run produced what was expected)."""
    problems: list[tuple[int, int, str]] = []
    for d in produced:
        e = next((e for e in expected if not e.seen and e.matches(d)), None)
        if e is not None:
            e.seen = True
        else:
            problems.append((d.line, d.col, f"unexpected {d.severity}: {d.message}"))
    for e in expected:
        if not e.seen:
            where = "" if e.line else " (at an unknown location)"
            problems.append((*e.at, f"expected {e.severity} \"{e.text}\"{where} was not produced"))
    problems.sort(key=lambda p: (p[0], p[1]))
    return [f"{file}:{ln}:{col}: error: {msg}" if ln else f"{file}: error: {msg}" for ln, col, msg in problems]
