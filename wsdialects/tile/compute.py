"""`tile` ops that compute on tiles beyond elementwise `arith` / `math`: `tile.dot` on
the tensor cores and `tile.reduce`."""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.common import (
    _UnaryTileOp,
    _i32,
    _int_prop,
    _parse_arrow_types,
    _parse_operand_list,
    _print_arrow_types,
)
from wsdialects.tile.types import DOT_INPUT_TYPES, PtrType, check_tile, element_type, shape_of

@irdl_op_definition
class DotOp(BodyThenAttrs):
    """`acc + a·b` with fp32 accumulation, on the tensor cores: a is MxK, b is KxN (f16,
    bf16, f8E4M3FN or f8E5M2, both alike), acc and the result are MxN f32 (Triton's
    `tl.dot(a, b, acc)`).

    Example:

        %d = tile.dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    """

    name = "tile.dot"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    acc = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue):
        super().__init__(operands=[a, b, acc], result_types=[acc.type])

    def verify_(self) -> None:
        a, b = self.a.type, self.b.type
        acc, res = self.acc.type, self.result.type
        for what, t in (("a", a), ("b", b)):
            if len(shape_of(t)) != 2:
                raise VerifyException(f"dot operand {what} must be 2-D, got {t}")
            if not isinstance(t.element_type, DOT_INPUT_TYPES):
                raise VerifyException(
                    f"dot operand {what} must be f16, bf16, f8E4M3FN or f8E5M2, got {t.element_type}"
                )
        if a.element_type != b.element_type:
            raise VerifyException(f"dot operands differ in element type: {a.element_type} vs {b.element_type}")
        (m, k), (k2, n) = shape_of(a), shape_of(b)
        if k != k2:
            raise VerifyException(f"dot reduction dims differ: a is {m}x{k}, b is {k2}x{n}")
        want = TensorType(Float32Type(), [m, n])
        if plain(acc) != want or plain(res) != want:
            raise VerifyException(f"dot accumulator and result must be {want}, got {acc} and {res}")

    @classmethod
    def parse_body(cls, parser: Parser):
        ops = _parse_operand_list(parser, 3, 3, "tile.dot takes three operands: a, b, acc")
        parser.parse_punctuation(":")
        at = parser.parse_type()
        parser.parse_punctuation(",")
        bt = parser.parse_type()
        parser.parse_punctuation("->")
        ct = parser.parse_type()
        return cls(*parser.resolve_operands(ops, [at, bt, ct], parser.pos))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.a, self.b, self.acc], printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([self.a.type, self.b.type], printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


REDUCE_KINDS = ("sum", "max", "min")


@irdl_op_definition
class ReduceOp(_UnaryTileOp):
    """Reduction of a tile along `axis` with `kind` = sum, max or min; the result drops that
    dim (a scalar for a 1-D tile), as Triton's `tl.sum` / `tl.max` / `tl.min`.

    Example:

        %m = tile.reduce max %x, 1 : tensor<128x64xf32> -> tensor<128xf32>
    """

    name = "tile.reduce"
    axis = prop_def(IntegerAttr)
    kind = prop_def(StringAttr)

    def __init__(self, src: SSAValue, result_type: Attribute | None = None, axis=0, kind="sum", **kw):
        if isinstance(axis, int):
            axis = _i32(axis)
        if isinstance(kind, str):
            kind = StringAttr(kind)
        if result_type is None:
            s = list(shape_of(src.type))
            del s[axis.value.data]
            et = element_type(src.type)
            result_type = TensorType(et, s) if s else et
        super().__init__(src, result_type, axis=axis, kind=kind)

    @classmethod
    def parse_body(cls, parser: Parser):
        kind = parser.parse_identifier()
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        axis = parser.parse_integer(allow_boolean=False)
        st, rt = _parse_arrow_types(parser)
        return cls(parser.resolve_operand(src, st), rt, axis=axis, kind=kind)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.src)
        printer.print_string(f", {_int_prop(self, 'axis')}")
        _print_arrow_types(printer, self.src.type, self.result.type)

    def verify_(self) -> None:
        src = check_tile(self.src.type, "reduce operand")
        if self.kind.data not in REDUCE_KINDS:
            raise VerifyException(
                f"reduce kind must be one of {', '.join(REDUCE_KINDS)}, got '{self.kind.data}'"
            )
        if isinstance(src.element_type, PtrType):
            raise VerifyException("cannot reduce a tile of pointers")
        axis = _int_prop(self, "axis")
        s = list(shape_of(src))
        if not 0 <= axis < len(s):
            raise VerifyException(f"axis {axis} out of range for a rank-{len(s)} tile")
        del s[axis]
        want = TensorType(src.element_type, s) if s else src.element_type
        ok = plain(self.result.type) == want or (not s and self.result.type == TensorType(src.element_type, []))
        if not ok:
            raise VerifyException(f"reduce along axis {axis} of {src} gives {want}, not {self.result.type}")
