"""The `tt` dialect's types as Triton 3.4-3.9 print them: `!tt.ptr<T>` and `!tt.tensordesc<...>`.

They exist only while TTIR is read: the import (`wsdialects/triton/convert.py`) turns every
`!tt.ptr<T>` into `!tile.ptr<T>` and every `!tt.tensordesc` into `!tile.desc`.

    !tt.ptr<f16>                        // a global pointer (address space 1, not printed)
    !tt.ptr<f16, 3>                     // another address space (refused by the import)
    !tt.ptr<tensor<64x32xf16>>          // a block pointer (tt.make_tensor_ptr, Triton <= 3.8)
    !tt.tensordesc<128x64xf16>          // Triton 3.6+ spelling of a TMA descriptor
    !tt.tensordesc<tensor<128x64xf16>>  // Triton 3.4-3.5 spelling of the same type
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer


@irdl_attr_definition
class TTPtrType(ParametrizedAttribute, TypeAttribute):
    """Triton's pointer: `!tt.ptr<T>` (global memory) or `!tt.ptr<T, N>` (address space N);
    a pointer to a tensor type is a block pointer."""

    name = "tt.ptr"
    pointee: Attribute = param_def()
    address_space: IntAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        pointee = parser.parse_type()
        space = 1
        if parser.parse_optional_punctuation(","):
            space = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        return (pointee, IntAttr(space))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.pointee)
        if self.address_space.data != 1:
            printer.print_string(f", {self.address_space.data}")
        printer.print_string(">")

    @property
    def is_block_pointer(self) -> bool:
        return isinstance(self.pointee, TensorType)


@irdl_attr_definition
class TTTensorDescType(ParametrizedAttribute, TypeAttribute):
    """Triton's TMA descriptor type, `block` being the box one access moves. Reads both
    spellings (`<128x64xf16>` and `<tensor<128x64xf16>>`) and prints the newer one; a
    shared-memory layout parameter (`, #ttg...`) is not TTIR and is refused."""

    name = "tt.tensordesc"
    block: TensorType = param_def()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        pos = parser.pos
        if parser._current_token.text == "tensor":
            block = parser.parse_type()
            if not isinstance(block, TensorType):
                parser.raise_error(f"expected a tensor type, got {block}", pos, parser.pos)
        else:
            dims, elem = parser.parse_ranked_shape()
            block = TensorType(elem, dims)
        if parser.parse_optional_punctuation(","):
            parser.raise_error("a !tt.tensordesc with a shared-memory layout is TritonGPU IR, not TTIR",
                               pos, parser.pos)
        parser.parse_punctuation(">")
        return (block,)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "x".join(str(d) for d in self.block.get_shape()) + "x")
        printer.print_attribute(self.block.element_type)
        printer.print_string(">")
