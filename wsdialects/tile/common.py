"""What the `tile` op modules share: property access, memory-effect traits, and the
pieces of the ops' custom syntax (operand lists, `: T -> U`, one-operand ops)."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, operand_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryEffect, MemoryEffectKind, EffectInstance, Pure

from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.types import PtrType, element_type

def _int_prop(op: IRDLOperation, name: str) -> int:
    return op.properties[name].value.data  # type: ignore[union-attr]


def _i32(v: int) -> IntegerAttr:
    return IntegerAttr(v, 32)


def _effects(*kinds: MemoryEffectKind):
    class _Effects(MemoryEffect):
        @classmethod
        def get_effects(cls, op):
            return {EffectInstance(k) for k in kinds}

    return _Effects()


READS = _effects(MemoryEffectKind.READ)
WRITES = _effects(MemoryEffectKind.WRITE)


def _parse_type_of(parser: Parser, kind, what: str) -> Attribute:
    """Parse a type that must be a `kind` (an op's custom form derives other
    types from it), as a located parse error otherwise."""
    pos = parser.pos
    t = parser.parse_type()
    if not kind(t):
        parser.raise_error(f"expected {what}, got {t}", pos, parser.pos)
    return t


def _parse_operand_list(parser: Parser, least: int, most: int, what: str) -> list:
    """`%a, %b, ...` with between `least` and `most` operands, else a parse error
    at the list (not at the next line, where the types end)."""
    pos = parser.pos
    ops = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    if not least <= len(ops) <= most:
        parser.raise_error(f"{what}, got {len(ops)} operands", pos, parser.pos)
    return ops


def _is_ptr_like(t: Attribute) -> bool:
    return isinstance(element_type(t), PtrType)


def _parse_arrow_types(parser: Parser) -> tuple[Attribute, Attribute]:
    parser.parse_punctuation(":")
    src = parser.parse_type()
    parser.parse_punctuation("->")
    return src, parser.parse_type()


def _print_arrow_types(printer: Printer, src: Attribute, dst: Attribute) -> None:
    printer.print_string(" : ")
    printer.print_attribute(src)
    printer.print_string(" -> ")
    printer.print_attribute(dst)


class _UnaryTileOp(BodyThenAttrs):
    """An op with one operand and one result, printed `%r = op %x : T -> U`."""

    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: Attribute, **props: Attribute):
        super().__init__(operands=[src], result_types=[result_type], properties=props)

    def _print_props(self, printer: Printer) -> None:
        pass

    @classmethod
    def _parse_props(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    @classmethod
    def parse_body(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        props = cls._parse_props(parser)
        src_t, res_t = _parse_arrow_types(parser)
        return cls(parser.resolve_operand(src, src_t), res_t, **props)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        self._print_props(printer)
        _print_arrow_types(printer, self.src.type, self.result.type)
