"""Descriptor arrays: one TMA descriptor per group of a grouped kernel, built by the launch.

A grouped GEMM whose groups are separate tensors (each its own base, shape and strides) needs a
descriptor per group. `!tile.descs<tensor<BxCxT>>` is a kernel argument that takes a list of
arrays: the launch builds one descriptor per array (the box `BxC` of type T, as for a
`!tile.desc` argument), all in one buffer in global memory, written before the kernel starts
and never changed by it, so the kernel needs no descriptor writes or proxy fences. An empty
array (a group with no rows) gets a placeholder the kernel must not use. `tile.desc_index`
picks the descriptor of one group; loads and stores then go through it as through a
`!tile.desc` argument (the Hopper lowering addresses the array's element in global memory):

    %ad = tile.desc_index %a_descs[%g] : !tile.descs<tensor<128x64xbf16>> -> !tile.desc<tensor<128x64xbf16>>
    %a = tile.desc_load %ad[%om, %ok] : !tile.desc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, i32
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import irdl_attr_definition, irdl_op_definition, operand_def, param_def, result_def, traits_def
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.common import _print_arrow_types
from wsdialects.tile.types import DescType, parse_block, print_block


@irdl_attr_definition
class DescArrayType(ParametrizedAttribute, TypeAttribute):
    """An array of TMA descriptors in global memory, one per group, each with box `block` (as
    `!tile.desc`'s); a kernel argument of this type takes a list of 2-D (or 3-D) arrays, and the
    launch builds the descriptors before the kernel starts.

    Example:

        !tile.descs<tensor<128x64xf16>>
    """

    name = "tile.descs"
    block: TensorType = param_def()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (parse_block(parser, "!tile.descs"),)

    def print_parameters(self, printer: Printer) -> None:
        print_block(printer, self.block)

    def verify(self) -> None:
        DescType(self.block).verify()  # the same blocks as one descriptor's

    @property
    def element(self) -> DescType:
        return DescType(self.block)


@irdl_op_definition
class DescIndexOp(BodyThenAttrs):
    """The descriptor of group `index` (i32, from 0) in the array `descs`: what `tile.desc_load`
    and `tile.desc_store` take, with the array's block. An index outside the array is an error
    (the interpreter reports it; on the GPU it reads past the array).

    Example:

        %d = tile.desc_index %descs[%g] : !tile.descs<tensor<128x64xf16>> -> !tile.desc<tensor<128x64xf16>>
    """

    name = "tile.desc_index"
    descs = operand_def(DescArrayType)
    index = operand_def(i32)
    result = result_def(DescType)
    traits = traits_def(Pure())

    def __init__(self, descs: SSAValue, index: SSAValue):
        super().__init__(operands=[descs, index], result_types=[descs.type.element])

    def verify_(self) -> None:
        if self.result.type != self.descs.type.element:
            raise VerifyException(f"desc_index of {self.descs.type} gives {self.descs.type.element}, "
                                  f"not {self.result.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        descs = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        at = parser.parse_type()
        parser.parse_punctuation("->")
        pos = parser.pos
        rt = parser.parse_type()
        if not isinstance(at, DescArrayType):
            parser.raise_error(f"tile.desc_index takes a !tile.descs array, got {at}", pos, parser.pos)
        op = cls(parser.resolve_operand(descs, at), parser.resolve_operand(index, i32))
        if rt != op.result.type:
            parser.raise_error(f"desc_index of {at} gives {op.result.type}, not {rt}", pos, parser.pos)
        return op

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.descs)
        printer.print_string("[")
        printer.print_operand(self.index)
        printer.print_string("]")
        _print_arrow_types(printer, self.descs.type, self.result.type)
