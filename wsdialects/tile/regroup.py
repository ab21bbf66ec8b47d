"""`tile` ops that regroup a tile's elements: `tile.reshape`, `tile.join`, `tile.split`
(Triton's `tl.reshape`, `tl.join`, `tl.split`).

All three keep the elements and their row-major order; they differ in how the dims are
cut. `tile.join` adds a minor dim of size 2 (element [..., 0] from the first operand,
[..., 1] from the second), `tile.split` is its inverse. The Hopper lowering takes the forms
that keep every element in its thread: a reshape that inserts or removes dims of size 1,
and a join / split whose minor 2 is a pair of one thread's registers (`#layout.pair`);
other reshapes are a located error.

    %r = tile.reshape %x : tensor<64xf32> -> tensor<32x2xf32>
    %j = tile.join %a, %b : tensor<32xf32> -> tensor<32x2xf32>
    %lo, %hi = tile.split %j : tensor<32x2xf32> -> tensor<32xf32>
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.common import _UnaryTileOp, _parse_arrow_types, _print_arrow_types
from wsdialects.tile.types import PtrType, check_tile, shape_of


@irdl_op_definition
class ReshapeOp(_UnaryTileOp):
    """The same elements in row-major order under another shape (same element count and type),
    as Triton's `tl.reshape` (which may reorder; this op never does, a choice it allows).

    Example:

        %r = tile.reshape %x : tensor<64xf32> -> tensor<32x2xf32>
    """

    name = "tile.reshape"

    def verify_(self) -> None:
        src = check_tile(self.src.type, "reshape operand")
        res = check_tile(self.result.type, "reshape result")
        if src.element_type != res.element_type:
            raise VerifyException(f"reshape changes the element type ({src.element_type} -> {res.element_type})")
        if math.prod(shape_of(src)) != math.prod(shape_of(res)):
            raise VerifyException(f"reshape of {src} to {res} changes the number of elements "
                                  f"({math.prod(shape_of(src))} -> {math.prod(shape_of(res))})")


def _joined(t: Attribute) -> TensorType:
    return TensorType(t.element_type, [*shape_of(t), 2])


@irdl_op_definition
class JoinOp(BodyThenAttrs):
    """Two tiles of one type joined along a new minor dim of size 2: result[..., 0] = lhs,
    result[..., 1] = rhs (Triton's `tl.join`).

    Example:

        %j = tile.join %a, %b : tensor<32xf32> -> tensor<32x2xf32>
    """

    name = "tile.join"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[_joined(lhs.type)])

    def verify_(self) -> None:
        a = plain(check_tile(self.lhs.type, "join operand"))  # layouts aside (ws-lower-layouts)
        if plain(self.rhs.type) != a:
            raise VerifyException(f"join operands differ: {a} and {self.rhs.type}")
        if isinstance(a.element_type, PtrType):
            raise VerifyException("cannot join tiles of pointers")
        if plain(self.result.type) != _joined(a):
            raise VerifyException(f"join of two {a} gives {_joined(a)}, not {self.result.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        st, rt = _parse_arrow_types(parser)
        return cls.create(operands=parser.resolve_operands([a, b], [st, st], parser.pos), result_types=[rt])

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.lhs, self.rhs], printer.print_operand)
        _print_arrow_types(printer, self.lhs.type, self.result.type)


@irdl_op_definition
class SplitOp(BodyThenAttrs):
    """A tile whose minor dim is 2 split into its two halves along it: lhs = src[..., 0],
    rhs = src[..., 1] (Triton's `tl.split`, the inverse of `tile.join`).

    Example:

        %lo, %hi = tile.split %x : tensor<32x2xf32> -> tensor<32xf32>
    """

    name = "tile.split"
    src = operand_def(TensorType)
    lhs = result_def(TensorType)
    rhs = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue):
        t = src.type
        half = TensorType(t.element_type, shape_of(t)[:-1])
        super().__init__(operands=[src], result_types=[half, half])

    def verify_(self) -> None:
        src = plain(check_tile(self.src.type, "split operand"))  # layouts aside (ws-lower-layouts)
        s = shape_of(src)
        if len(s) < 2 or s[-1] != 2:
            raise VerifyException(f"split takes a tile whose minor dim is 2 (and rank >= 2), got {src}")
        half = TensorType(src.element_type, s[:-1])
        if plain(self.lhs.type) != half or plain(self.rhs.type) != half:
            raise VerifyException(f"split of {src} gives two {half}, not {self.lhs.type} and {self.rhs.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        st, rt = _parse_arrow_types(parser)
        return cls.create(operands=[parser.resolve_operand(src, st)], result_types=[rt, rt])

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        _print_arrow_types(printer, self.src.type, self.lhs.type)
