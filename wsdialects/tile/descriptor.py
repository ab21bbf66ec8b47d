"""`tile.make_desc`: a TMA descriptor made on the device from a base pointer, the global
tensor's shape and its strides (Triton's `tl.make_tensor_descriptor`).

A `!tile.desc` kernel argument is built by the host at launch; this op builds the same
descriptor inside the kernel from values the kernel has. Shape sizes are i32, strides i64
(in elements; the innermost stride must be 1, and the others a multiple of 16 bytes, as
TMA requires; the interpreter checks the first). `tile.desc_load` / `tile.desc_store` then
read and write through it as through an argument. The Hopper lowering builds no descriptor on
the device: `ws-host-descriptors` (which ws-specialize and ws-hopper run first) makes one whose
base is a pointer argument and whose sizes and strides are `+ - *` of arguments and constants
an argument the launch builds; any other stops `ws-hopper` at this op with a located error.

    %d = tile.make_desc %q, [%rows, %c64], [%c64_i64, %c1_i64] : !tile.ptr<f16> -> !tile.desc<tensor<128x64xf16>>
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32, i64
from xdsl.ir import SSAValue
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, operand_def, result_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.common import _print_arrow_types
from wsdialects.tile.types import DescType, PtrType, shape_of


@irdl_op_definition
class MakeDescOp(BodyThenAttrs):
    """A TMA descriptor over the global tensor at `base` with sizes `shape` (i32, one per dim,
    outermost first) and element strides `strides` (i64); the result type's block is the box
    one access moves, of the pointee's element type, with as many dims as `shape` (or one fewer:
    a 2-D block of a 3-D tensor).

    Example:

        %d = tile.make_desc %p, [%m, %k], [%sk, %c1] : !tile.ptr<f16> -> !tile.desc<tensor<128x64xf16>>
    """

    name = "tile.make_desc"
    base = operand_def(PtrType)
    shape = var_operand_def(i32)
    strides = var_operand_def(i64)
    result = result_def(DescType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(self, base: SSAValue, shape, strides, result_type: DescType):
        super().__init__(operands=[base, list(shape), list(strides)], result_types=[result_type])

    def verify_(self) -> None:
        dt = self.result.type
        rank, block = len(self.shape), shape_of(dt.block)
        if len(self.strides) != rank:
            raise VerifyException(f"make_desc takes as many strides as sizes, got {rank} sizes and "
                                  f"{len(self.strides)} strides")
        if rank not in (len(block), len(block) + 1) or rank > 3:
            raise VerifyException(f"a {len(block)}-D block {dt.block} needs a {len(block)}-D global tensor, "
                                  f"got {rank} sizes")
        if self.base.type.pointee != dt.block.element_type:
            raise VerifyException(f"descriptor element type {dt.block.element_type} differs from the "
                                  f"base pointer's {self.base.type.pointee}")

    @classmethod
    def parse_body(cls, parser: Parser):
        base = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(",")
        strides = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        bt = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        return cls(parser.resolve_operand(base, bt),
                   parser.resolve_operands(shape, [i32] * len(shape), parser.pos),
                   parser.resolve_operands(strides, [i64] * len(strides), parser.pos), rt)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        for vals in (self.shape, self.strides):
            printer.print_string(", [")
            printer.print_list(vals, printer.print_operand)
            printer.print_string("]")
        _print_arrow_types(printer, self.base.type, self.result.type)
