"""Reading TTIR text: the project's parser (`WsParser`: locations, error positions) over a
context of wsdialects' dialects plus `tt`, with Triton's location aliases resolved to the
user's Python frames (`locations.py`)."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Attribute
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from wsdialects.diagnostics import WsParser
from wsdialects.triton.locations import AliasTable, python_location


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
