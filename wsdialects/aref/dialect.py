"""The `aref` dialect: asynchronous references (Tawa §III-B, Fig. 4).

An aref ring is `depth` one-slot channels between a producer and its consumers.
Ring position `k` (a monotonically increasing counter, usually the loop
iteration) uses slot `k mod depth`; `k / depth` counts passes over the ring and
gives the barrier parity in the lowering. The payload may be several tiles that
travel together behind one pair of barriers:

    %r = aref.create : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
    aref.put %r[%k], %a, %b : !aref.ring<...>       // wait E[s]; buf := (a, b); F[s] := 1
    %a2, %b2 = aref.get %r[%k] : !aref.ring<...>    // wait F[s]; borrow buf
    aref.consumed %r[%k] : !aref.ring<...>          // E[s] := 1: the slot may be reused
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IndexType, IntAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    param_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from wsdialects.syntax import BodyThenAttrs
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class RingType(ParametrizedAttribute, TypeAttribute):
    """A ring of `depth` aref slots between a producer and its consumers; every slot holds one
    value of each payload type (tiles), which travel together behind one pair of barriers.

    Example:

        !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
    """

    name = "aref.ring"
    payload: ArrayAttr[Attribute] = param_def()
    depth: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, payload: Sequence[Attribute], depth: int | IntAttr):
        super().__init__(ArrayAttr(list(payload)), depth)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        types: list[Attribute] = []
        while parser.parse_optional_keyword("depth") is None:
            types.append(parser.parse_type())
            parser.parse_punctuation(",")
        parser.parse_punctuation("=")
        depth = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        return (ArrayAttr(types), IntAttr(depth))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for t in self.payload:
            printer.print_attribute(t)
            printer.print_string(", ")
        printer.print_string(f"depth = {self.depth.data}>")

    def verify(self) -> None:
        if self.depth.data < 1:
            raise VerifyException(f"aref ring depth must be >= 1, got {self.depth.data}")
        if len(self.payload) == 0:
            raise VerifyException("aref ring payload must hold at least one type")
        for t in self.payload:
            if not isinstance(t, TensorType):
                raise VerifyException(f"aref payload types must be tiles (tensors), got {t}")

    @property
    def types(self) -> list[Attribute]:
        return list(self.payload.data)


def _ring(op: IRDLOperation) -> RingType:
    t = op.ring.type
    if not isinstance(t, RingType):
        raise VerifyException(f"expected an !aref.ring operand, got {t}")
    return t


def _check_position(op: IRDLOperation) -> None:
    t = op.position.type
    if not (isinstance(t, IndexType) or isinstance(t, IntegerType) and t.width.data in (32, 64)):
        raise VerifyException(f"ring position must be i32, i64 or index, got {t}")


_NEVER_TWICE = {
    "aref.put": "the second put waits for the slot to be empty, which needs this position's get and release",
    "aref.get": "a get borrows the slot until it is released, so the second get waits forever",
    "aref.consumed": "the slot is released twice",
}


def _check_once_per_block(op: IRDLOperation) -> None:
    """No earlier op of the same kind in `op`'s block accesses the same position
    (the same SSA value) of the same ring: that program deadlocks (Tawa Fig. 4)."""
    block = op.parent_block()
    if block is None:
        return
    for other in block.ops:
        if other is op:
            return
        if other.name == op.name and other.operands[0] is op.ring and other.operands[1] is op.position:
            raise VerifyException(f"an earlier {op.name} in this block accesses the same position of the same "
                                  f"ring: {_NEVER_TWICE[op.name]}")


def _parse_ring_type(parser: Parser) -> RingType:
    pos = parser.pos
    rt = parser.parse_type()
    if not isinstance(rt, RingType):
        parser.raise_error(f"expected an !aref.ring type, got {rt}", pos, parser.pos)
    return rt


def _check_payload(op: IRDLOperation, what: str) -> None:
    """The op's values have exactly the ring's payload types."""
    want = _ring(op).types
    got = [v.type for v in op.values]
    if got != want:
        raise VerifyException(
            f"{what} ({', '.join(map(str, got))}) do not match the ring payload "
            f"({', '.join(map(str, want))})"
        )


def _parse_access(parser: Parser):
    ring = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    pos = parser.parse_unresolved_operand()
    pos_t = IntegerType(32)
    if parser.parse_optional_punctuation(":") is not None:
        pos_t = parser.parse_type()
    parser.parse_punctuation("]")
    return ring, pos, pos_t


def _print_access(printer: Printer, ring: SSAValue, pos: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_operand(ring)
    printer.print_string("[")
    printer.print_operand(pos)
    if pos.type != IntegerType(32):
        printer.print_string(" : ")
        printer.print_attribute(pos.type)
    printer.print_string("]")



@irdl_op_definition
class CreateOp(BodyThenAttrs):
    """A fresh ring, every slot empty. `consumers` is the number of consumer warp groups that
    must each release a slot before the producer may refill it (default 1).

    Example:

        %r = aref.create : !aref.ring<tensor<64x64xf16>, depth = 2>
    """

    name = "aref.create"
    consumers = opt_prop_def(IntegerAttr)
    ring = result_def(RingType)

    def __init__(self, ring_type: RingType, consumers: int | None = None):
        props = {} if consumers is None else {"consumers": IntegerAttr(consumers, 32)}
        super().__init__(result_types=[ring_type], properties=props)

    @property
    def num_consumers(self) -> int:
        return 1 if self.consumers is None else self.consumers.value.data

    def verify_(self) -> None:
        if self.num_consumers < 1:
            raise VerifyException(f"consumers must be >= 1, got {self.num_consumers}")

    @classmethod
    def parse_body(cls, parser: Parser):
        consumers = None
        if parser.parse_optional_keyword("consumers") is not None:
            parser.parse_punctuation("=")
            consumers = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        return cls(parser.parse_type(), consumers)

    def print_body(self, printer: Printer) -> None:
        if self.consumers is not None:
            printer.print_string(f" consumers = {self.num_consumers}")
        printer.print_string(" : ")
        printer.print_attribute(self.ring.type)


@irdl_op_definition
class PutOp(BodyThenAttrs):
    """Waits until slot `position mod depth` is empty, then publishes `values` in it (one per
    payload type) and marks it full. The position is i32 (the default), i64 or index.

    Example:

        aref.put %r[%k], %a : !aref.ring<tensor<64x64xf16>, depth = 2>
    """

    name = "aref.put"
    ring = operand_def(RingType)
    position = operand_def()
    values = var_operand_def()

    def __init__(self, ring: SSAValue, position: SSAValue, values: Sequence[SSAValue]):
        super().__init__(operands=[ring, position, list(values)])

    def verify_(self) -> None:
        _check_position(self)
        _check_payload(self, "put values")
        _check_once_per_block(self)

    @classmethod
    def parse_body(cls, parser: Parser):
        ring, pos, pos_t = _parse_access(parser)
        parser.parse_punctuation(",")
        vals = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        type_pos = parser.pos
        rt = _parse_ring_type(parser)
        types = rt.types
        if len(types) != len(vals):
            parser.raise_error(
                f"aref.put: {len(vals)} values for a ring of {len(types)} payload types", type_pos, parser.pos
            )
        return cls(
            parser.resolve_operand(ring, rt),
            parser.resolve_operand(pos, pos_t),
            parser.resolve_operands(vals, types, parser.pos),
        )

    def print_body(self, printer: Printer) -> None:
        _print_access(printer, self.ring, self.position)
        printer.print_string(", ")
        printer.print_list(self.values, printer.print_operand)
        printer.print_string(" : ")
        printer.print_attribute(self.ring.type)


@irdl_op_definition
class GetOp(BodyThenAttrs):
    """Waits until slot `position mod depth` is full, then borrows its values; they stay valid
    until the matching `aref.consumed`.

    Example:

        %a = aref.get %r[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
    """

    name = "aref.get"
    ring = operand_def(RingType)
    position = operand_def()
    values = var_result_def()

    def __init__(self, ring: SSAValue, position: SSAValue):
        super().__init__(operands=[ring, position], result_types=[ring.type.types])

    def verify_(self) -> None:
        _check_position(self)
        _check_payload(self, "get results")
        _check_once_per_block(self)

    @classmethod
    def parse_body(cls, parser: Parser):
        ring, pos, pos_t = _parse_access(parser)
        parser.parse_punctuation(":")
        rt = _parse_ring_type(parser)
        return cls(parser.resolve_operand(ring, rt), parser.resolve_operand(pos, pos_t))

    def print_body(self, printer: Printer) -> None:
        _print_access(printer, self.ring, self.position)
        printer.print_string(" : ")
        printer.print_attribute(self.ring.type)


@irdl_op_definition
class ConsumedOp(BodyThenAttrs):
    """Releases slot `position mod depth` back to the producer: once every consumer has
    released it, it is empty and may be refilled.

    Example:

        aref.consumed %r[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
    """

    name = "aref.consumed"
    ring = operand_def(RingType)
    position = operand_def()

    def __init__(self, ring: SSAValue, position: SSAValue):
        super().__init__(operands=[ring, position])

    def verify_(self) -> None:
        _check_position(self)
        _ring(self)
        _check_once_per_block(self)

    @classmethod
    def parse_body(cls, parser: Parser):
        ring, pos, pos_t = _parse_access(parser)
        parser.parse_punctuation(":")
        rt = _parse_ring_type(parser)
        return cls(parser.resolve_operand(ring, rt), parser.resolve_operand(pos, pos_t))

    def print_body(self, printer: Printer) -> None:
        _print_access(printer, self.ring, self.position)
        printer.print_string(" : ")
        printer.print_attribute(self.ring.type)


Aref = Dialect("aref", [CreateOp, PutOp, GetOp, ConsumedOp], [RingType])
