"""What the `nvgpu` op modules share: the `%b[%i]` slot / barrier syntax, the i32 check
on indices and parities, and the base of the ops written as their name alone."""

from __future__ import annotations

from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from wsdialects.nvgpu.types import MBarriersType
from wsdialects.syntax import BodyThenAttrs

# ----------------------------------------------------------------------------- helpers

def _i32(parser: Parser, unresolved):
    return parser.resolve_operand(unresolved, i32)


def _parse_bar(parser: Parser):
    """`%b[%i]` -> (unresolved barrier group, resolved i32 index)."""
    b = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    i = _i32(parser, parser.parse_unresolved_operand())
    parser.parse_punctuation("]")
    return b, i


def _print_bar(printer: Printer, b: SSAValue, i: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_operand(b)
    printer.print_string("[")
    printer.print_operand(i)
    printer.print_string("]")


def _parse_bar_type(parser: Parser) -> MBarriersType:
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, MBarriersType):
        parser.raise_error(f"expected an !nvgpu.mbarriers type, got {t}", pos, parser.pos)
    return t


def _check_i32(op: IRDLOperation, *vals: SSAValue) -> None:
    for v in vals:
        if v.type != i32:
            raise VerifyException(f"slot indices and parities must be i32, got {v.type}")


class _NoOperands(BodyThenAttrs):
    """An op written as its name alone (plus an optional attribute dictionary)."""

    @classmethod
    def parse_body(cls, parser: Parser):
        return cls()

    def print_body(self, printer: Printer) -> None:
        pass
