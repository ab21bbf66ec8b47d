"""Shared custom-syntax helpers for the project's dialects."""

from __future__ import annotations

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
