"""Printing: xDSL's printer's text, written with fewer calls (see the package docstring)."""

from __future__ import annotations

import re
import sys

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.printer import Printer
from xdsl.utils.base_printer import BasePrinter

_xdsl_print_string = BasePrinter.print_string
_xdsl_print_bytes_literal = Printer.print_bytes_literal
_xdsl_dense_print = DenseIntOrFPElementsAttr.print_without_type
_xdsl_dense_is_splat = DenseIntOrFPElementsAttr.is_splat


def print_string(self, text: str, *, indent: int | None = None) -> None:
    """xDSL's `BasePrinter.print_string`; text without a newline is written with the
    stream's `write` instead of `print(text, end="", file=stream)` (the same characters)."""
    if "\n" in text:
        _xdsl_print_string(self, text, indent=indent)
        return
    self._current_column += len(text)
    stream = self.stream
    if stream is None:
        stream = sys.stdout
        if stream is None:  # as print() does
            return
    stream.write(text)


_PLAIN_BYTES = re.compile(rb"[\x20\x21\x23-\x5b\x5d-\x7e]*")


def print_bytes_literal(self, bytestring: bytes) -> None:
    """xDSL's `Printer.print_bytes_literal` (a quoted string, `\\` for a backslash, `\\XX`
    for a quote or a byte outside 0x20-0x7E), printed as one string instead of one per byte."""
    if _PLAIN_BYTES.fullmatch(bytestring):
        self.print_string('"' + bytestring.decode("ascii") + '"')
        return
    out = ['"']
    for byte in bytestring:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 > byte or byte > 0x7E or byte == 0x22:
            out.append(f"\\{byte:02X}")
        else:
            out.append(chr(byte))
    out.append('"')
    self.print_string("".join(out))


def _splat_element(attr: DenseIntOrFPElementsAttr):
    """The element of a dense constant whose elements are all the same bytes and which is an
    int or a float other than NaN (so all its elements compare equal), else None."""
    raw = attr.data.data
    n = len(attr)
    if n:
        size = len(raw) // n
        if len(raw) == n * size and raw == raw[:size] * n:
            first = attr.get_element_type().unpack(raw[:size], 1)[0]
            if type(first) is int or (type(first) is float and first == first):
                return first
    return None


def dense_is_splat(self) -> bool:
    """xDSL's `DenseIntOrFPElementsAttr.is_splat` (every element equal to the first): true
    at once where every element is the same bytes (not a NaN), else xDSL's comparison."""
    if _splat_element(self) is not None:
        return True
    return _xdsl_dense_is_splat(self)


def dense_print_without_type(self, printer) -> None:
    """xDSL's `DenseIntOrFPElementsAttr.print_without_type` for a splat (every element the same
    bytes, not a NaN): the one element, unpacked alone, instead of unpacking every element
    twice (`get_values`, `is_splat`); anything else is xDSL's."""
    first = _splat_element(self)
    if first is not None:
        printer.print_string("dense")
        with printer.in_angle_brackets():
            self._print_one_elem(first, printer)
        return
    _xdsl_dense_print(self, printer)
