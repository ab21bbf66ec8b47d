"""Reading TTIR text: the project's parser (`WsParser`: locations, error positions) over a
context of wsdialects' dialects plus `tt`, with Triton's location aliases resolved to the
user's Python frames (`locations.py`)."""

from __future__ import annotations

import re

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, UnknownLoc
from xdsl.ir import Attribute
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from wsdialects.diagnostics import WsError, WsParser
from wsdialects.triton.locations import AliasTable, python_location

# An op's start: its results (`%a, %b:2 =`), then its name, bare or quoted (generic form).
_OP_START = re.compile(r'(?:%[\w.$-]+(?::\d+)?\s*(?:,\s*%[\w.$-]+(?::\d+)?\s*)*=\s*)?("?)([A-Za-z_][\w$]*\.[\w.$]+)\1')
_OPEN = {MLIRTokenKind.L_PAREN, MLIRTokenKind.L_SQUARE, MLIRTokenKind.L_BRACE, MLIRTokenKind.LESS}
_CLOSE = {MLIRTokenKind.R_PAREN, MLIRTokenKind.R_SQUARE, MLIRTokenKind.R_BRACE, MLIRTokenKind.GREATER}


def make_ttir_context():
    from wsdialects.context import make_context
    from wsdialects.triton.dialect import TT

    ctx = make_context()
    ctx.load_dialect(TT)
    return ctx


class TtirParser(WsParser):
    """WsParser that reads `loc(...)` through this text's alias table and keeps, as an op's
    location, its frame in the user's Python code (or, with none, the TTIR text position)."""

    def __init__(self, ctx, text: str, name: str, aliases: AliasTable, resolving: frozenset = frozenset()):
        super().__init__(ctx, text, name)
        self.aliases, self.resolving = aliases, resolving
        self.python_locs: set = set()  # the locations that are the user's Python frames

    def _alias(self, name: str, span: Span) -> Attribute:
        table = self.aliases
        if name in table.resolved:
            return table.resolved[name]
        text = table.texts.get(name)
        if text is None:
            raise ParseError(span, f"undefined location alias '#{name}'")
        if name in self.resolving:
            raise ParseError(span, f"location alias '#{name}' is defined in terms of itself")
        sub = TtirParser(self.ctx, text, self.lexer.input.name, table, self.resolving | {name})
        try:
            loc = sub.parse_optional_location()
        except ParseError as e:  # at the alias's use: its definition was blanked out of the text
            raise ParseError(span, f"in location alias '#{name}': {e.msg}") from None
        table.resolved[name] = loc = loc if loc is not None else UnknownLoc()
        return loc

    def _parse_location(self):
        tok = self._current_token
        if tok.kind == MLIRTokenKind.HASH_IDENT:
            self._consume_token()
            return self._alias(tok.text[1:], tok.span)
        return super()._parse_location()

    def parse_operation(self):
        """An op whose name no loaded dialect registers is reported, naming it, at its own
        `loc(...)` (the user's Python line) rather than where its name is in the TTIR: its
        custom syntax cannot be parsed, so the text is skipped to the trailing location."""
        text = self.lexer.input.content
        m = _OP_START.match(text, self._current_token.span.start)
        if m is not None and self.ctx.get_optional_op(
                m.group(2), dialect_stack=self._parser_state.dialect_stack) is None:
            self._unsupported(m.group(2), m.start(2) - len(m.group(1)), m.end())
        return super().parse_operation()

    def _unsupported(self, name: str, start: int, after: int):
        from wsdialects.triton.dialect import unsupported_message

        message = unsupported_message(name)
        loc = self._trailing_location(after)
        if isinstance(loc, FileLineColLoc):
            raise WsError(message, loc.filename.data, loc.line.data, loc.column.data)
        raise ParseError(Span(start, start + len(name), self.lexer.input), message)

    def _trailing_location(self, pos: int):
        """The location written after the op whose name ends at `pos` (None if there is none):
        the first `loc(` outside any brackets, looked for up to the first line break outside
        brackets (Triton prints each op on one line, a region op's location after its `}`)."""
        text = self.lexer.input.content
        self._resume_from(pos)
        depth, last = 0, pos
        while True:
            tok = self._current_token
            kind = tok.kind
            if kind == MLIRTokenKind.EOF or depth == 0 and "\n" in text[last:tok.span.start]:
                return None
            if depth == 0 and kind == MLIRTokenKind.BARE_IDENT and tok.text == "loc":
                try:
                    return self.parse_optional_location()
                except ParseError:
                    return None
            if kind in _OPEN:
                depth += 1
            elif kind in _CLOSE:
                depth -= 1
                if depth < 0:  # the end of the enclosing region: no location
                    return None
            last = tok.span.end
            self._consume_token()

    def parse_optional_location(self):
        loc = super().parse_optional_location()
        if loc is None or self.resolving:  # an alias keeps its whole structure until used
            return loc
        found = python_location(loc)
        if found is None:
            return UnknownLoc()
        self.python_locs.add(found)
        return found


def parse_ttir(text: str, filename: str) -> tuple[ModuleOp, set]:
    """The TTIR module as read (tt ops, not verified) and the set of its locations that are
    the user's Python frames; ParseError on bad text."""
    aliases = AliasTable(text)
    parser = TtirParser(make_ttir_context(), aliases.blanked, filename, aliases)
    return parser.parse_module(), parser.python_locs
