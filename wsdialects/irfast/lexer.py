"""The lexer the parser (`diagnostics.WsParser`) reads tokens from: xDSL 0.74's MLIRLexer with
a string-literal pattern that fails in linear time, and the common tokens in one regular
expression (test_irfast: the same tokens as xDSL's lexer on our files)."""

from __future__ import annotations

import re

from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind


class WsLexer(MLIRLexer):
    """xDSL 0.74's lexer with a string-literal pattern that fails in linear time.
    Its `"(?:[^"...]+|\\...)*"` nests a repetition in a repetition: an unterminated
    literal of n characters backtracks through 2^n splits (40 characters: hours).
    One character per repetition matches the same strings without the ambiguity."""

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')

    def lex(self):
        # The common tokens in one regular expression, each as xDSL's lexer forms it: the
        # whitespace and comments before it (xDSL's pattern, atomic: no backtracking into a
        # comment), then a bare identifier, a %/^/!/# identifier (not `#-}`), an
        # @identifier, `->`, one punctuation character (not `.`, nor `{-#`), or a number
        # (hexadecimal `0x` + a hex digit, else decimal with xDSL's fractional suffix).
        # Anything else (strings, `...`, non-ASCII, the end, errors) is xDSL's `lex`.
        inp = self.input
        m = _FAST_TOKEN.match(inp.content, self.pos)
        if m is None:
            return super().lex()
        group = m.lastindex
        kind = _KIND_OF_GROUP[group]
        if kind is None:
            text = m.group(group)
            kind = _PREFIXED[text[0]] if group == 2 else _PUNCTUATION[text]
        elif group == 5 and m.group(6) is not None:
            kind = _FLOAT
        start = m.start(group)
        self.pos = end = m.end()
        span = _new(Span)  # Span(start, end, inp): a frozen dataclass's fields, set as its __init__ sets them
        d = span.__dict__
        d["start"] = start
        d["end"] = end
        d["input"] = inp
        d["line_offset"] = 0
        token = _new(Token)  # Token(kind, span)
        d = token.__dict__
        d["kind"] = kind
        d["span"] = span
        return token

_new = object.__new__
_FAST_TOKEN = re.compile(
    r"(?>(?://[^\n]*\n?|\s+)*)"  # MLIRLexer._whitespace_regex, atomic
    r"(?:([a-zA-Z_][a-zA-Z0-9_$.]*)"  # 1: bare identifier
    r"|((?:[%^!]|#(?!-\}))(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))"  # 2: prefixed identifier
    r"|(->|[:,()}\[\]<>=+*?|/-]|\{(?!-#))"  # 3: punctuation
    r"|(0x[0-9a-fA-F]+)"  # 4: hexadecimal integer
    r"|([0-9]+(\.[0-9]*(?:[eE][+-]?[0-9]+)?)?)"  # 5: decimal integer or (6: fraction) float
    r"|(@[a-zA-Z_][a-zA-Z0-9_$.]*))",  # 7: @identifier
    re.ASCII)
_K = MLIRTokenKind
_BARE, _INT, _FLOAT, _AT = _K.BARE_IDENT, _K.INTEGER_LIT, _K.FLOAT_LIT, _K.AT_IDENT
# the kind of token each group of _FAST_TOKEN matches (None: by its text; group 5 may be a float)
_KIND_OF_GROUP = (None, _BARE, None, None, _INT, _INT, None, _AT)
_PREFIXED = {"%": _K.PERCENT_IDENT, "^": _K.CARET_IDENT, "!": _K.EXCLAMATION_IDENT, "#": _K.HASH_IDENT}
_PUNCTUATION = {":": _K.COLON, ",": _K.COMMA, "(": _K.L_PAREN, ")": _K.R_PAREN, "}": _K.R_BRACE,
                "[": _K.L_SQUARE, "]": _K.R_SQUARE, "<": _K.LESS, ">": _K.GREATER, "=": _K.EQUAL,
                "+": _K.PLUS, "/": _K.SLASH, "*": _K.STAR, "?": _K.QUESTION, "|": _K.VERTICAL_BAR,
                "-": _K.MINUS, "->": _K.ARROW, "{": _K.L_BRACE}
