"""Shared custom-syntax helpers for the project's dialects."""

from __future__ import annotations

from xdsl.ir import Block
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer


class BodyThenAttrs(IRDLOperation):
    """Custom syntax `<op body> {attr-dict}`: the op's own format (its
    `parse_body` / `print_body`), then any discardable attributes, such as the
    partitioning tags, so they survive a round trip."""

    @classmethod
    def parse(cls, parser: Parser):
        op = cls.parse_body(parser)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        self.print_body(printer)
        if self.attributes:
            printer.print_op_attributes(self.attributes)


def parse_region_then_attrs(parser: Parser, op_from_body) -> IRDLOperation:
    """`{ ...body... } attributes {...}`: the op built by `op_from_body(region)` from the
    parsed region (an empty region gets its one block), then its discardable attributes."""
    body = parser.parse_region()
    if not body.blocks:
        body.add_block(Block())
    op = op_from_body(body)
    attrs = parser.parse_optional_attr_dict_with_keyword()
    if attrs is not None:
        op.attributes.update(attrs.data)
    return op


def print_region_then_attrs(printer: Printer, op: IRDLOperation, region) -> None:
    """The printed form `parse_region_then_attrs` reads: the region without entry-block
    arguments, then `attributes {...}` where the op has any."""
    printer.print_region(region, print_entry_block_args=False, print_empty_block=False)
    if op.attributes:
        printer.print_op_attributes(op.attributes, print_keyword=True)
