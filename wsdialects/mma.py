"""The `mma` dialect: asynchronous tensor-core matmul (Tawa §III-D1).

`mma.async_dot` issues acc + a·b and returns at once; its result is *in flight*
until an `mma.wait` retires it. `mma.wait {pending = P}` blocks until at most
the P most recently issued async dots of this partition are still in flight and
returns its operands, now readable where retired. An in-flight accumulator may
only feed the next `mma.async_dot` (as its accumulator), an `scf.yield` or a
wait; anything else reading it is an error the interpreter reports.

    %d = mma.async_dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    %r = mma.wait %d {pending = 1} : tensor<128x256xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile import DotOp


@irdl_op_definition
class AsyncDotOp(BodyThenAttrs):
    """Issues `acc + a·b` on the tensor cores without waiting (wgmma.mma_async); the result is
    in flight until an `mma.wait` retires it and may only feed the next `mma.async_dot` (as
    its accumulator), an `scf.yield` or a wait. Same operand rules as `tile.dot`.

    Example:

        %d = mma.async_dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    """

    name = "mma.async_dot"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    acc = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue):
        super().__init__(operands=[a, b, acc], result_types=[acc.type])

    def verify_(self) -> None:
        DotOp.verify_(self)  # same typing rules as tile.dot

    # Same syntax as tile.dot: `%d = mma.async_dot %a, %b, %acc : A, B -> C {attrs}`.
    parse_body = classmethod(DotOp.parse_body.__func__)
    print_body = DotOp.print_body


@irdl_op_definition
class WaitOp(IRDLOperation):
    """Waits until at most `pending` async dots of this partition are still in flight
    (wgmma.wait_group) and returns its operands, now readable where retired.

    Example:

        %r = mma.wait %d {pending = 1} : tensor<128x256xf32>
    """

    name = "mma.wait"
    pending = prop_def(IntegerAttr)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)

    def __init__(self, values: Sequence[SSAValue], pending: int):
        super().__init__(
            operands=[list(values)],
            result_types=[[v.type for v in values]],
            properties={"pending": IntegerAttr(pending, 32)},
        )

    @property
    def num_pending(self) -> int:
        return self.pending.value.data

    def verify_(self) -> None:
        if self.num_pending < 0:
            raise VerifyException(f"pending must be >= 0, got {self.num_pending}")
        if [v.type for v in self.inputs] != [r.type for r in self.outputs]:
            raise VerifyException("mma.wait results must have the types of its operands")

    @classmethod
    def parse(cls, parser: Parser):
        start = parser.pos
        vals = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        ) or []
        parser.parse_punctuation("{")
        parser.parse_keyword("pending")
        parser.parse_punctuation("=")
        pending = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("}")
        types = []
        if parser.parse_optional_punctuation(":") is not None:
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(vals):
            parser.raise_error(f"{cls.name}: {len(vals)} operands but {len(types)} types", start, parser.pos)
        return cls(parser.resolve_operands(vals, types, parser.pos), pending)

    def print(self, printer: Printer) -> None:
        if self.inputs:
            printer.print_string(" ")
            printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(f" {{pending = {self.num_pending}}}")
        if self.inputs:
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.inputs], printer.print_attribute)


Mma = Dialect("mma", [AsyncDotOp, WaitOp], [])
