"""The `tile` dialect's types (`!tile.ptr`, `!tile.desc`) and the element-type and
shape predicates the ops' verifiers share."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

# --------------------------------------------------------------------------- types


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A pointer into global memory to elements of type `pointee` (f16, bf16, f32, f8E4M3FN,
    f8E5M2, i1, i32 or i64). A kernel argument of this type takes a C-contiguous array,
    addressed flat, in elements; a tile of pointers (`tensor<64x!tile.ptr<f16>>`) is what
    `tile.load` and `tile.store` take.

    Example:

        !tile.ptr<f16>
    """

    name = "tile.ptr"
    pointee: Attribute = param_def()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        pointee = parser.parse_type()
        parser.parse_punctuation(">")
        return (pointee,)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.pointee)
        printer.print_string(">")

    def verify(self) -> None:
        if not is_element_type(self.pointee) or isinstance(self.pointee, PtrType):
            raise VerifyException(
                f"!tile.ptr: unsupported pointee type {self.pointee}"
            )


def parse_block(parser: AttrParser, what: str) -> TensorType:
    """`<tensor<...>>`, the box of a descriptor type (`what`: the type's name, for the error)."""
    parser.parse_punctuation("<")
    pos = parser.pos
    block = parser.parse_type()
    if not isinstance(block, TensorType):
        parser.raise_error(f"{what} expects a tensor block type, got {block}", pos, parser.pos)
    parser.parse_punctuation(">")
    return block


def print_block(printer: Printer, block: TensorType) -> None:
    printer.print_string("<")
    printer.print_attribute(block)
    printer.print_string(">")


@irdl_attr_definition
class DescType(ParametrizedAttribute, TypeAttribute):
    """A TMA tensor descriptor over a 2-D or 3-D global tensor; `block` is the box one
    `tile.desc_load` or `tile.desc_store` moves (2-D or 3-D, static, a tile element type
    other than i1 and pointers). A kernel argument of this type takes a 2-D (or 3-D) array;
    out-of-bounds reads give 0, out-of-bounds writes are dropped.

    Example:

        !tile.desc<tensor<128x64xf16>>
    """

    name = "tile.desc"
    block: TensorType = param_def()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (parse_block(parser, "!tile.desc"),)

    def print_parameters(self, printer: Printer) -> None:
        print_block(printer, self.block)

    def verify(self) -> None:
        shape = self.block.get_shape()
        if len(shape) not in (2, 3):
            raise VerifyException(
                f"!tile.desc block must be 2-D or 3-D, got rank {len(shape)}"
            )
        if any(d <= 0 for d in shape):
            raise VerifyException("!tile.desc block must have a static positive shape")
        elem = self.block.element_type
        if not is_element_type(elem) or isinstance(elem, PtrType) or elem == IntegerType(1):
            raise VerifyException(f"!tile.desc: unsupported element type {elem}")


FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float8E4M3FNType, Float8E5M2Type)
DOT_INPUT_TYPES = (Float16Type, BFloat16Type, Float8E4M3FNType, Float8E5M2Type)
INT_WIDTHS = (1, 32, 64)


def is_element_type(t: Attribute) -> bool:
    """Element types a tile may hold (docs/dialects/tile.md)."""
    if isinstance(t, (*FLOAT_TYPES, PtrType)):
        return True
    return isinstance(t, IntegerType) and t.width.data in INT_WIDTHS


def is_scalar_type(t: Attribute) -> bool:
    return is_element_type(t) or isinstance(t, IndexType | Float64Type)


def element_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def shape_of(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def check_tile(t: Attribute, what: str) -> TensorType:
    """A tile operand or result: a static tensor of a supported element type."""
    if not isinstance(t, TensorType):
        raise VerifyException(f"{what} must be a tensor, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {t}")
    if not is_element_type(t.element_type):
        raise VerifyException(
            f"{what} has unsupported element type {t.element_type}"
        )
    return t
