"""The `arith` dialect with MLIR's tensor semantics restored.

xDSL 0.74 verifies `arith.cmpi`/`arith.cmpf` only with a scalar i1 result, prints
`arith.select` assuming a scalar condition, and rejects tensors in
`arith.sitofp`/`arith.fptosi` and the integer casts (`extsi`, `extui`, `trunci`,
`index_cast`); it accepts `arith.extf` to a narrower and
`arith.truncf` to a wider type (or another shape). MLIR accepts the first ones
elementwise on tensors and rejects the last:

    %m = arith.cmpi slt, %a, %b : tensor<128xi32>          // -> tensor<128xi1>
    %s = arith.select %m, %x, %y : tensor<128xi1>, tensor<128xf32>
    %f = arith.sitofp %i : tensor<128xi32> to tensor<128xf32>
    %w = arith.extsi %i : tensor<128xi32> to tensor<128xi64>

This module redefines those ops (same names, same generic form) and builds an
`Arith` dialect in which they replace xDSL's. `test/python/test_xdsl_workarounds.py`
shows that stock xDSL still rejects these forms, i.e. that the workaround is needed.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith as _x
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.dialects.builtin import IntegerAttr
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

I1 = IntegerType(1)


def _shape(t: Attribute):
    return tuple(t.get_shape()) if isinstance(t, TensorType | VectorType) else None


def _elem(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType | VectorType) else t


def _i1_like(t: Attribute) -> Attribute:
    """i1 for a scalar, tensor<...xi1> of the same shape for a tensor."""
    if isinstance(t, TensorType):
        return TensorType(I1, t.get_shape(), t.encoding)
    if isinstance(t, VectorType):
        return VectorType(I1, t.get_shape())
    return I1


def _check_same_shape(a: Attribute, b: Attribute, what: str) -> None:
    if _shape(a) != _shape(b) or type(a) is not type(b) and _shape(a) is not None:
        raise VerifyException(f"{what}: {a} and {b} differ in shape")


class _TensorCompare:
    """Result i1 (or tensor of i1 shaped like the operands)."""

    def _init(self, operand1, operand2, arg, extra_props=None):
        operand1, operand2 = SSAValue.get(operand1), SSAValue.get(operand2)
        if operand1.type != operand2.type:
            raise TypeError(f"comparison operands differ: {operand1.type} vs {operand2.type}")
        table = self.PREDICATES
        if isinstance(arg, str):
            if arg not in table:
                raise VerifyException(f"unknown predicate '{arg}'")
            arg = table[arg]
        props = {"predicate": _x.IntegerAttr(arg, 64)}
        props.update(extra_props or {})
        Operation.__init__(  # type: ignore[misc]
            self,
            operands=[operand1, operand2],
            result_types=[_i1_like(operand1.type)],
            properties=props,
        )

    # MLIR's custom form, with the attribute dictionary that xDSL's drops:
    #   arith.cmpi slt, %a, %b {attrs} : T      arith.cmpf olt, %a, %b fastmath<fast> {attrs} : T
    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        pred = parser.parse_identifier()
        if pred not in cls.PREDICATES:
            parser.raise_error(f"unknown predicate '{pred}' (expected one of {', '.join(cls.PREDICATES)})", pos, parser.pos)
        parser.parse_punctuation(",")
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        extra = []
        if cls.name == "arith.cmpf" and parser.parse_optional_keyword("fastmath") is not None:
            extra.append(_x.FastMathFlagsAttr(_x.FastMathFlagsAttr.parse_parameter(parser)))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        a, b = parser.resolve_operands([a, b], [t, t], parser.pos)
        op = cls(a, b, pred, *extra)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        names = {v: k for k, v in self.PREDICATES.items()}
        printer.print_string(f" {names.get(self.predicate.value.data, self.predicate.value.data)}, ")
        printer.print_list([self.lhs, self.rhs], printer.print_operand)
        fastmath = self.properties.get("fastmath")
        if fastmath is not None and fastmath != _x.FastMathFlagsAttr("none"):
            printer.print_string(" fastmath")
            fastmath.print_parameter(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)

    def verify_(self) -> None:
        want = _i1_like(self.lhs.type)
        if self.lhs.type != self.rhs.type:
            raise VerifyException(f"operands differ in type: {self.lhs.type} vs {self.rhs.type}")
        if self.result.type != want:
            raise VerifyException(f"result must be {want} for operands of type {self.lhs.type}, got {self.result.type}")
        pred = self.predicate.value.data
        if pred not in self.PREDICATES.values():
            raise VerifyException(f"predicate {pred} out of range")


_CMPI = {n: i for i, n in enumerate(["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"])}
_CMPF = {
    n: i
    for i, n in enumerate(
        ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]
    )
}


@irdl_op_definition
class CmpiOp(_TensorCompare, IRDLOperation):
    """Integer comparison (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge), elementwise on
    tensors: tensor operands give a tensor of i1 of their shape.

    Example:

        %m = arith.cmpi slt, %a, %b : tensor<8xi32>
    """

    name = "arith.cmpi"
    PREDICATES: ClassVar[dict[str, int]] = _CMPI
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(_x.signlessIntegerLike)
    rhs = operand_def(_x.signlessIntegerLike)
    result = result_def(IntegerType | TensorType | VectorType)
    traits = traits_def(Pure())

    def __init__(self, operand1, operand2, arg):
        self._init(operand1, operand2, arg)


@irdl_op_definition
class CmpfOp(_TensorCompare, IRDLOperation):
    """Float comparison (oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno,
    false, true), elementwise on tensors: tensor operands give a tensor of i1 of their shape.

    Example:

        %m = arith.cmpf olt, %a, %b : tensor<8xf32>
    """

    name = "arith.cmpf"
    PREDICATES: ClassVar[dict[str, int]] = _CMPF
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(_x.floatingPointLike)
    rhs = operand_def(_x.floatingPointLike)
    fastmath = prop_def(_x.FastMathFlagsAttr, default_value=_x.FastMathFlagsAttr("none"))
    result = result_def(IntegerType | TensorType | VectorType)
    traits = traits_def(Pure())

    def __init__(self, operand1, operand2, arg, fastmath=None):
        self._init(operand1, operand2, arg, {"fastmath": fastmath or _x.FastMathFlagsAttr("none")})


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`cond ? lhs : rhs`; with a tensor of i1 as `cond`, elementwise (the condition's type
    is then written before the result's).

    Example:

        %r = arith.select %m, %x, %y : tensor<8xi1>, tensor<8xf32>
    """

    name = "arith.select"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(IntegerType | TensorType | VectorType)
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)
    traits = traits_def(Pure())

    def __init__(self, cond, lhs, rhs):
        lhs = SSAValue.get(lhs)
        super().__init__(operands=[cond, lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        ct = self.cond.type
        if ct != I1 and ct != _i1_like(self.result.type):
            raise VerifyException(
                f"condition must be i1 or {_i1_like(self.result.type)}, got {ct}"
            )

    @classmethod
    def parse(cls, parser: Parser):
        ops = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        if len(ops) != 3:
            parser.raise_error("arith.select takes three operands")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t1 = parser.parse_type()
        if parser.parse_optional_punctuation(",") is not None:
            cond_t, res_t = t1, parser.parse_type()
        else:
            cond_t, res_t = I1, t1
        c, a, b = parser.resolve_operands(ops, [cond_t, res_t, res_t], parser.pos)
        op = cls(c, a, b)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.cond, self.lhs, self.rhs], printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if isinstance(self.cond.type, TensorType | VectorType):
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)


def _cast_verify(op, in_kind, out_kind, name: str) -> None:
    it, ot = op.input.type, op.result.type
    if _shape(it) != _shape(ot):
        raise VerifyException(f"operand {it} and result {ot} differ in shape")
    if not isinstance(_elem(it), in_kind) or not isinstance(_elem(ot), out_kind):
        raise VerifyException(f"cannot cast {it} to {ot}")


class _Cast(IRDLOperation):
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, op: SSAValue | Operation, target_type: Attribute):
        super().__init__(operands=[op], result_types=[target_type])


_INT_LIKE = IntegerType | TensorType | VectorType
_FLOAT_LIKE = AnyFloat | TensorType | VectorType


@irdl_op_definition
class SIToFPOp(_Cast):
    """Signed integer to float, elementwise on tensors.

    Example:

        %f = arith.sitofp %i : tensor<8xi32> to tensor<8xf32>
    """

    name = "arith.sitofp"
    input = operand_def(_INT_LIKE)
    result = result_def(_FLOAT_LIKE)

    def verify_(self) -> None:
        _cast_verify(self, IntegerType, AnyFloat, self.name)


@irdl_op_definition
class UIToFPOp(_Cast):
    """Unsigned integer to float, elementwise on tensors.

    Example:

        %f = arith.uitofp %i : tensor<8xi32> to tensor<8xf32>
    """

    name = "arith.uitofp"
    input = operand_def(_INT_LIKE)
    result = result_def(_FLOAT_LIKE)

    def verify_(self) -> None:
        _cast_verify(self, IntegerType, AnyFloat, self.name)


@irdl_op_definition
class FPToSIOp(_Cast):
    """Float to signed integer (rounding toward zero), elementwise on tensors.

    Example:

        %i = arith.fptosi %f : tensor<8xf32> to tensor<8xi32>
    """

    name = "arith.fptosi"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_INT_LIKE)

    def verify_(self) -> None:
        _cast_verify(self, AnyFloat, IntegerType, self.name)


@irdl_op_definition
class FPToUIOp(_Cast):
    """Float to unsigned integer (rounding toward zero), elementwise on tensors.

    Example:

        %i = arith.fptoui %f : tensor<8xf32> to tensor<8xi32>
    """

    name = "arith.fptoui"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_INT_LIKE)

    def verify_(self) -> None:
        _cast_verify(self, AnyFloat, IntegerType, self.name)


def _float_resize_verify(op, wider: bool) -> None:
    """extf widens, truncf narrows: same shape, float to float, and a strictly
    wider (narrower) element type, as in MLIR (xDSL 0.74 checks none of it)."""
    _cast_verify(op, AnyFloat, AnyFloat, op.name)
    it, rt = _elem(op.input.type), _elem(op.result.type)
    if (rt.bitwidth <= it.bitwidth) if wider else (rt.bitwidth >= it.bitwidth):
        other = "arith.truncf" if wider else "arith.extf"
        raise VerifyException(
            f"result element type {rt} must be {'wider' if wider else 'narrower'} than the "
            f"operand's {it}" + (f" (use {other})" if rt.bitwidth != it.bitwidth else ""))


@irdl_op_definition
class ExtFOp(_Cast):
    """Float widening, elementwise; the result's element type is wider than the operand's.

    Example:

        %f = arith.extf %h : tensor<8xf16> to tensor<8xf32>
    """

    name = "arith.extf"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)

    def verify_(self) -> None:
        _float_resize_verify(self, wider=True)


@irdl_op_definition
class TruncFOp(_Cast):
    """Float narrowing (round to nearest even), elementwise; the result's element type is
    narrower than the operand's.

    Example:

        %h = arith.truncf %f : tensor<8xf32> to tensor<8xf16>
    """

    name = "arith.truncf"
    input = operand_def(_FLOAT_LIKE)
    result = result_def(_FLOAT_LIKE)

    def verify_(self) -> None:
        _float_resize_verify(self, wider=False)


def _int_resize_verify(op, wider: bool) -> None:
    """extsi/extui widen, trunci narrows: same shape, integer to integer, and a strictly
    wider (narrower) element type, as in MLIR."""
    _cast_verify(op, IntegerType, IntegerType, op.name)
    it, rt = _elem(op.input.type), _elem(op.result.type)
    if (rt.width.data <= it.width.data) if wider else (rt.width.data >= it.width.data):
        raise VerifyException(
            f"result element type {rt} must be {'wider' if wider else 'narrower'} than the operand's {it}")


@irdl_op_definition
class ExtSIOp(_Cast):
    """Signed integer widening (sign extension), elementwise on tensors.

    Example:

        %w = arith.extsi %i : tensor<8xi32> to tensor<8xi64>
    """

    name = "arith.extsi"
    input = operand_def(_INT_LIKE)
    result = result_def(_INT_LIKE)

    def verify_(self) -> None:
        _int_resize_verify(self, wider=True)


@irdl_op_definition
class ExtUIOp(_Cast):
    """Unsigned integer widening (zero extension), elementwise on tensors.

    Example:

        %w = arith.extui %m : tensor<8xi1> to tensor<8xi32>
    """

    name = "arith.extui"
    input = operand_def(_INT_LIKE)
    result = result_def(_INT_LIKE)

    def verify_(self) -> None:
        _int_resize_verify(self, wider=True)


@irdl_op_definition
class TruncIOp(_Cast):
    """Integer narrowing (the low bits), elementwise on tensors.

    Example:

        %n = arith.trunci %w : tensor<8xi64> to tensor<8xi32>
    """

    name = "arith.trunci"
    input = operand_def(_INT_LIKE)
    result = result_def(_INT_LIKE)

    def verify_(self) -> None:
        _int_resize_verify(self, wider=False)


@irdl_op_definition
class IndexCastOp(_Cast):
    """Integer to `index` or `index` to integer (sign-extending or truncating), elementwise on
    tensors; exactly one side's element type is `index`.

    Example:

        %i = arith.index_cast %w : tensor<8xi64> to tensor<8xindex>
    """

    name = "arith.index_cast"
    input = operand_def(IntegerType | IndexType | TensorType | VectorType)
    result = result_def(IntegerType | IndexType | TensorType | VectorType)

    def verify_(self) -> None:
        it, ot = self.input.type, self.result.type
        if _shape(it) != _shape(ot):
            raise VerifyException(f"operand {it} and result {ot} differ in shape")
        ie, oe = _elem(it), _elem(ot)
        kinds = (IntegerType, IndexType)
        if not (isinstance(ie, kinds) and isinstance(oe, kinds)) or isinstance(ie, IndexType) == isinstance(oe, IndexType):
            raise VerifyException(f"cannot cast {it} to {ot}: exactly one side must be index, the other an integer")


REPLACED = {op.name: op for op in (CmpiOp, CmpfOp, SelectOp, SIToFPOp, UIToFPOp, FPToSIOp, FPToUIOp,
                                   ExtFOp, TruncFOp, ExtSIOp, ExtUIOp, TruncIOp, IndexCastOp)}

Arith = Dialect(
    "arith",
    [REPLACED.get(op.name, op) for op in _x.Arith.operations],
    list(_x.Arith.attributes),
)


def splat_constant(v: SSAValue) -> int | float | None:
    """The one value an `arith.constant` holds (a scalar, or a dense tile whose elements are
    all equal), else None: what passes and the emitter ask of a constant operand."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr

    op = v.owner
    if not isinstance(op, Operation) or op.name != "arith.constant":
        return None
    val = op.properties.get("value") or op.attributes.get("value")
    if isinstance(val, (IntegerAttr, FloatAttr)):
        return val.value.data
    if isinstance(val, DenseIntOrFPElementsAttr):
        vals = set(val.get_values())
        return vals.pop() if len(vals) == 1 else None
    return None
