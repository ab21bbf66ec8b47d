"""The `tile` dialect: the compiler's input language, close to Triton's TTIR.

One program instance (a CTA) computes on whole tiles (`tensor<...>` values); the
compiler decides threads, layouts, shared memory and synchronization. A kernel is
a `func.func` carrying the unit attribute `tile.kernel`:

    func.func @k(%d: !tile.desc<tensor<128x64xf16>>, %n: i32)
        attributes {tile.kernel, tile.num_warps = 4 : i32} {
      %pid = tile.program_id 0 : i32
      %a = tile.desc_load %d[%pid, %n] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
      ...
    }

`tile.num_warps` is how many warps run the tile code: whole warp groups, a
multiple of 4 from 4 to 28 (default 4; ws-distribute adds a producer warp group to
a CTA of at most 32 warps); once warp-specialized it counts every warp, at most 32.
`wsdialects/attributes.py` verifies it (and `tile.kernel`) on every func.
Elementwise math is `arith` and `math` on tensors, control flow `scf.for` /
`scf.if`. The reference of every op is docs/dialects/tile.md (generated from these
definitions); docs/writing-a-kernel.md shows how to write a kernel.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    param_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from wsdialects.layout import plain
from wsdialects.syntax import BodyThenAttrs
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryEffect, MemoryEffectKind, EffectInstance, Pure
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
        parser.parse_punctuation("<")
        pos = parser.pos
        block = parser.parse_type()
        if not isinstance(block, TensorType):
            parser.raise_error(
                f"!tile.desc expects a tensor block type, got {block}", pos, parser.pos
            )
        parser.parse_punctuation(">")
        return (block,)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.block)
        printer.print_string(">")

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


def _int_prop(op: IRDLOperation, name: str) -> int:
    return op.properties[name].value.data  # type: ignore[union-attr]


def _i32(v: int) -> IntegerAttr:
    return IntegerAttr(v, 32)


def _effects(*kinds: MemoryEffectKind):
    class _Effects(MemoryEffect):
        @classmethod
        def get_effects(cls, op):
            return {EffectInstance(k) for k in kinds}

    return _Effects()


READS = _effects(MemoryEffectKind.READ)
WRITES = _effects(MemoryEffectKind.WRITE)


def _parse_type_of(parser: Parser, kind, what: str) -> Attribute:
    """Parse a type that must be a `kind` (an op's custom form derives other
    types from it), as a located parse error otherwise."""
    pos = parser.pos
    t = parser.parse_type()
    if not kind(t):
        parser.raise_error(f"expected {what}, got {t}", pos, parser.pos)
    return t


def _parse_operand_list(parser: Parser, least: int, most: int, what: str) -> list:
    """`%a, %b, ...` with between `least` and `most` operands, else a parse error
    at the list (not at the next line, where the types end)."""
    pos = parser.pos
    ops = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    if not least <= len(ops) <= most:
        parser.raise_error(f"{what}, got {len(ops)} operands", pos, parser.pos)
    return ops


def _is_ptr_like(t: Attribute) -> bool:
    return isinstance(element_type(t), PtrType)


def _parse_arrow_types(parser: Parser) -> tuple[Attribute, Attribute]:
    parser.parse_punctuation(":")
    src = parser.parse_type()
    parser.parse_punctuation("->")
    return src, parser.parse_type()


def _print_arrow_types(printer: Printer, src: Attribute, dst: Attribute) -> None:
    printer.print_string(" : ")
    printer.print_attribute(src)
    printer.print_string(" -> ")
    printer.print_attribute(dst)


# --------------------------------------------------------------------------- ops



class _AxisOp(BodyThenAttrs):
    axis = prop_def(IntegerAttr)
    result = result_def(i32)
    traits = traits_def(Pure())

    def __init__(self, axis: int):
        super().__init__(properties={"axis": _i32(axis)}, result_types=[i32])

    def verify_(self) -> None:
        if not 0 <= _int_prop(self, "axis") <= 2:
            raise VerifyException(
                f"axis must be 0, 1 or 2, got {_int_prop(self, 'axis')}"
            )

    @classmethod
    def parse_body(cls, parser: Parser):
        axis = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        return cls.create(properties={"axis": _i32(axis)}, result_types=[parser.parse_type()])

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {_int_prop(self, 'axis')} : i32")


@irdl_op_definition
class ProgramIdOp(_AxisOp):
    """This program's index along grid axis `axis` (0, 1 or 2), as Triton's
    `tl.program_id(axis)`.

    Example:

        %pid = tile.program_id 0 : i32
    """

    name = "tile.program_id"


@irdl_op_definition
class NumProgramsOp(_AxisOp):
    """The number of programs along grid axis `axis` (0, 1 or 2), as Triton's
    `tl.num_programs(axis)`.

    Example:

        %n = tile.num_programs 0 : i32
    """

    name = "tile.num_programs"


@irdl_op_definition
class MakeRangeOp(BodyThenAttrs):
    """The integers [start, end) as a 1-D i32 tile, as Triton's `tl.arange(start, end)`;
    the range is non-empty and starts at 0 or above.

    Example:

        %r = tile.make_range 0 to 128 : tensor<128xi32>
    """

    name = "tile.make_range"
    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, start: int, end: int):
        super().__init__(
            properties={"start": _i32(start), "end": _i32(end)},
            result_types=[TensorType(i32, [end - start])],
        )

    def verify_(self) -> None:
        start, end = _int_prop(self, "start"), _int_prop(self, "end")
        if start < 0 or end <= start:
            raise VerifyException(
                f"range [{start}, {end}) must be non-empty with start >= 0"
            )
        t = self.result.type
        if not isinstance(t, TensorType) or t.element_type != i32 or shape_of(t) != (
            end - start,
        ):
            raise VerifyException(
                f"result must be tensor<{end - start}xi32> for range [{start}, {end}), got {t}"
            )

    @classmethod
    def parse_body(cls, parser: Parser):
        start = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("to")
        end = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        return cls.create(
            properties={"start": _i32(start), "end": _i32(end)},
            result_types=[parser.parse_type()],
        )

    def print_body(self, printer: Printer) -> None:
        printer.print_string(
            f" {_int_prop(self, 'start')} to {_int_prop(self, 'end')} : "
        )
        printer.print_attribute(self.result.type)


class _UnaryTileOp(BodyThenAttrs):
    """An op with one operand and one result, printed `%r = op %x : T -> U`."""

    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: Attribute, **props: Attribute):
        super().__init__(operands=[src], result_types=[result_type], properties=props)

    def _print_props(self, printer: Printer) -> None:
        pass

    @classmethod
    def _parse_props(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    @classmethod
    def parse_body(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        props = cls._parse_props(parser)
        src_t, res_t = _parse_arrow_types(parser)
        return cls(parser.resolve_operand(src, src_t), res_t, **props)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        self._print_props(printer)
        _print_arrow_types(printer, self.src.type, self.result.type)


@irdl_op_definition
class SplatOp(_UnaryTileOp):
    """A tile whose every element is the scalar operand (Triton's implicit scalar broadcast).

    Example:

        %t = tile.splat %x : i32 -> tensor<128xi32>
    """

    name = "tile.splat"

    def verify_(self) -> None:
        res = check_tile(self.result.type, "splat result")
        if isinstance(self.src.type, TensorType):
            raise VerifyException(f"splat operand must be a scalar, got {self.src.type}")
        if res.element_type != self.src.type:
            raise VerifyException(
                f"splat result element type {res.element_type} does not match "
                f"operand type {self.src.type}"
            )


@irdl_op_definition
class BroadcastOp(_UnaryTileOp):
    """Stretches the size-1 dims of a tile to the result shape (same rank, same element type).

    Example:

        %b = tile.broadcast %x : tensor<128x1xf32> -> tensor<128x64xf32>
    """

    name = "tile.broadcast"

    def verify_(self) -> None:
        src = check_tile(self.src.type, "broadcast operand")
        res = check_tile(self.result.type, "broadcast result")
        if src.element_type != res.element_type:
            raise VerifyException(
                f"broadcast changes the element type ({src.element_type} -> {res.element_type})"
            )
        s, r = shape_of(src), shape_of(res)
        if len(s) != len(r):
            raise VerifyException(
                f"broadcast keeps the rank: operand rank {len(s)}, result rank {len(r)}"
            )
        for i, (a, b) in enumerate(zip(s, r)):
            if a != b and a != 1:
                raise VerifyException(
                    f"broadcast dim {i}: operand size {a} cannot stretch to {b}"
                )


@irdl_op_definition
class ExpandDimsOp(_UnaryTileOp):
    """Inserts a size-1 dim at `axis`, as Triton's `x[:, None]` (axis 1) or `x[None, :]`
    (axis 0).

    Example:

        %e = tile.expand_dims %x, 1 : tensor<128xi32> -> tensor<128x1xi32>
    """

    name = "tile.expand_dims"
    axis = prop_def(IntegerAttr)

    def __init__(self, src: SSAValue, result_type: Attribute | None = None, axis=0, **kw):
        if isinstance(axis, int):
            axis = _i32(axis)
        if result_type is None:
            s = list(shape_of(src.type))
            s.insert(axis.value.data, 1)
            result_type = TensorType(element_type(src.type), s)
        super().__init__(src, result_type, axis=axis)

    @classmethod
    def _parse_props(cls, parser: Parser):
        parser.parse_punctuation(",")
        return {"axis": _i32(parser.parse_integer(allow_boolean=False))}

    def _print_props(self, printer: Printer) -> None:
        printer.print_string(f", {_int_prop(self, 'axis')}")

    def verify_(self) -> None:
        src = check_tile(self.src.type, "expand_dims operand")
        res = check_tile(self.result.type, "expand_dims result")
        axis = _int_prop(self, "axis")
        s = list(shape_of(src))
        if not 0 <= axis <= len(s):
            raise VerifyException(f"axis {axis} out of range [0, {len(s)}]")
        s.insert(axis, 1)
        if tuple(s) != shape_of(res) or src.element_type != res.element_type:
            raise VerifyException(
                f"expand_dims at axis {axis} of {src} gives "
                f"{TensorType(src.element_type, s)}, not {res}"
            )


@irdl_op_definition
class TransOp(_UnaryTileOp):
    """Permutes the dims of a tile: result dim i is operand dim `order[i]` (`[1, 0]`: the
    transpose, Triton's `tl.trans`). The Hopper lowering reads a `tile.trans [1, 0]` of an
    NxK shared-memory tile as wgmma's K-major B operand.

    Example:

        %t = tile.trans %b [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
    """

    name = "tile.trans"
    order = prop_def(DenseArrayBase)

    def __init__(self, src: SSAValue, result_type: Attribute | None = None, order=(1, 0), **kw):
        if not isinstance(order, DenseArrayBase):
            order = DenseArrayBase.from_list(i32, list(order))
        if result_type is None:
            s = shape_of(src.type)
            perm = order.get_values()
            result_type = TensorType(element_type(src.type), [s[p] for p in perm])
        super().__init__(src, result_type, order=order)

    @classmethod
    def _parse_props(cls, parser: Parser):
        order = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        return {"order": DenseArrayBase.from_list(i32, order)}

    def _print_props(self, printer: Printer) -> None:
        printer.print_string(f" {list(self.order.get_values())}")

    def verify_(self) -> None:
        src = check_tile(self.src.type, "trans operand")
        res = check_tile(self.result.type, "trans result")
        if self.order.elt_type != i32:
            raise VerifyException("order must be an array<i32>")
        perm = list(self.order.get_values())
        s = shape_of(src)
        if sorted(perm) != list(range(len(s))):
            raise VerifyException(
                f"order {perm} is not a permutation of the {len(s)} dims"
            )
        want = tuple(s[p] for p in perm)
        if want != shape_of(res) or src.element_type != res.element_type:
            raise VerifyException(
                f"trans by {perm} of {src} gives {TensorType(src.element_type, want)}, not {res}"
            )


@irdl_op_definition
class AddPtrOp(BodyThenAttrs):
    """Pointer plus an offset in elements (i32 or i64), elementwise on tiles; the offset has
    the pointer's shape.

    Example:

        %q = tile.addptr %p, %off : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
    """

    name = "tile.addptr"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, ptr: SSAValue, offset: SSAValue):
        super().__init__(operands=[ptr, offset], result_types=[ptr.type])

    def verify_(self) -> None:
        pt, ot = self.ptr.type, self.offset.type
        if not isinstance(element_type(pt), PtrType):
            raise VerifyException(f"addptr base must be a pointer or tile of pointers, got {pt}")
        oe = element_type(ot)
        if not (isinstance(oe, IntegerType) and oe.width.data in (32, 64)):
            raise VerifyException(f"addptr offset must be i32 or i64 (or a tile of them), got {ot}")
        if shape_of(pt) != shape_of(ot) or isinstance(pt, TensorType) != isinstance(ot, TensorType):
            raise VerifyException(
                f"addptr offset shape {list(shape_of(ot))} does not match pointer shape {list(shape_of(pt))}"
            )
        if plain(self.result.type) != plain(pt):
            raise VerifyException(f"addptr result must have the pointer's type {pt}")

    @classmethod
    def parse_body(cls, parser: Parser):
        p = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        o = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        pt = parser.parse_type()
        parser.parse_punctuation(",")
        ot = parser.parse_type()
        return cls(parser.resolve_operand(p, pt), parser.resolve_operand(o, ot))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, self.offset], printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([self.ptr.type, self.offset.type], printer.print_attribute)


def _mask_type_for(t: Attribute) -> Attribute:
    return TensorType(IntegerType(1), shape_of(t), t.encoding) if isinstance(t, TensorType) else IntegerType(1)


def _check_mask(mask: SSAValue, like: Attribute) -> None:
    if plain(mask.type) != plain(_mask_type_for(like)):
        raise VerifyException(
            f"mask must be {_mask_type_for(like)} to match {like}, got {mask.type}"
        )


def _pointee_tile_type(ptr_type: Attribute) -> Attribute:
    pointee = element_type(ptr_type).pointee  # type: ignore[union-attr]
    if isinstance(ptr_type, TensorType):
        return TensorType(pointee, shape_of(ptr_type), ptr_type.encoding)
    return pointee


@irdl_op_definition
class LoadOp(BodyThenAttrs):
    """Masked gather through a pointer (or a tile of pointers): operands `ptrs [, mask
    [, other]]`; masked-off elements take `other` (default 0).

    Example:

        %v = tile.load %ptrs, %mask : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
    """

    name = "tile.load"
    ptr = operand_def()
    rest = var_operand_def()  # [mask [, other]]
    result = result_def()
    traits = traits_def(READS)

    def __init__(self, ptr: SSAValue, mask: SSAValue | None = None, other: SSAValue | None = None):
        rest = [v for v in (mask, other) if v is not None]
        super().__init__(operands=[ptr, rest], result_types=[_pointee_tile_type(ptr.type)])

    @property
    def mask(self) -> SSAValue | None:
        return self.rest[0] if len(self.rest) > 0 else None

    @property
    def other(self) -> SSAValue | None:
        return self.rest[1] if len(self.rest) > 1 else None

    def verify_(self) -> None:
        if not isinstance(element_type(self.ptr.type), PtrType):
            raise VerifyException(f"load expects a pointer or tile of pointers, got {self.ptr.type}")
        if len(self.rest) > 2:
            raise VerifyException(f"load takes ptrs [, mask [, other]], got {1 + len(self.rest)} operands")
        want = _pointee_tile_type(self.ptr.type)
        if plain(self.result.type) != plain(want):
            raise VerifyException(f"load of {self.ptr.type} gives {want}, not {self.result.type}")
        if self.mask is not None:
            _check_mask(self.mask, self.ptr.type)
        if self.other is not None and plain(self.other.type) != plain(want):
            raise VerifyException(f"other must have the result type {want}, got {self.other.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        ops = _parse_operand_list(parser, 1, 3, "tile.load takes ptrs [, mask [, other]]")
        parser.parse_punctuation(":")
        pt = _parse_type_of(parser, _is_ptr_like, "a pointer or a tile of pointers")
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        types = [pt, _mask_type_for(pt), rt][: len(ops)]
        vals = parser.resolve_operands(ops, types, parser.pos)
        return cls.create(operands=vals, result_types=[rt])

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, *self.rest], printer.print_operand)
        _print_arrow_types(printer, self.ptr.type, self.result.type)


@irdl_op_definition
class StoreOp(BodyThenAttrs):
    """Masked scatter through a pointer (or a tile of pointers): operands `ptrs, value
    [, mask]`; masked-off elements are not written.

    Example:

        tile.store %ptrs, %v, %mask : tensor<64x!tile.ptr<f16>>
    """

    name = "tile.store"
    ptr = operand_def()
    value = operand_def()
    rest = var_operand_def()  # [mask]
    traits = traits_def(WRITES)

    def __init__(self, ptr: SSAValue, value: SSAValue, mask: SSAValue | None = None):
        super().__init__(operands=[ptr, value, [mask] if mask is not None else []])

    @property
    def mask(self) -> SSAValue | None:
        return self.rest[0] if self.rest else None

    def verify_(self) -> None:
        if not isinstance(element_type(self.ptr.type), PtrType):
            raise VerifyException(f"store expects a pointer or tile of pointers, got {self.ptr.type}")
        if len(self.rest) > 1:
            raise VerifyException(f"store takes ptrs, value [, mask], got {2 + len(self.rest)} operands")
        want = _pointee_tile_type(self.ptr.type)
        if plain(self.value.type) != plain(want):
            raise VerifyException(f"stored value must be {want} to match {self.ptr.type}, got {self.value.type}")
        if self.mask is not None:
            _check_mask(self.mask, self.ptr.type)

    @classmethod
    def parse_body(cls, parser: Parser):
        ops = _parse_operand_list(parser, 2, 3, "tile.store takes ptrs, value [, mask]")
        parser.parse_punctuation(":")
        pt = _parse_type_of(parser, _is_ptr_like, "a pointer or a tile of pointers")
        types = [pt, _pointee_tile_type(pt), _mask_type_for(pt)][: len(ops)]
        return cls(*parser.resolve_operands(ops, types, parser.pos))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, self.value, *self.rest], printer.print_operand)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


def _check_desc_indices(desc: SSAValue, idx: Sequence[SSAValue]) -> TensorType:
    dt = desc.type
    if not isinstance(dt, DescType):
        raise VerifyException(f"expected a !tile.desc operand, got {dt}")
    rank = len(shape_of(dt.block))
    if len(idx) != rank and not (rank == 2 and len(idx) == 3):
        more = " (or 3 for a 2-D block of a 3-D tensor: a leading index, then the block's)" if rank == 2 else ""
        raise VerifyException(f"{dt} takes {rank} indices{more}, got {len(idx)}")
    for i in idx:
        if i.type != i32:
            raise VerifyException(f"descriptor indices must be i32, got {i.type}")
    return dt.block


def _parse_desc_access(parser: Parser):
    d = parser.parse_unresolved_operand()
    idx = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
    return d, idx


def _print_desc_access(printer: Printer, desc: SSAValue, idx: Sequence[SSAValue]) -> None:
    printer.print_string(" ")
    printer.print_operand(desc)
    printer.print_string("[")
    printer.print_list(idx, printer.print_operand)
    printer.print_string("]")


@irdl_op_definition
class DescLoadOp(BodyThenAttrs):
    """TMA load of the descriptor's block whose first element is at (idx0, idx1, ...), one
    i32 index per block dim (or 3 for a 2-D block of a 3-D tensor: a leading index, then
    the block's); out-of-bounds elements read 0.

    Example:

        %a = tile.desc_load %d[%i, %k] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    """

    name = "tile.desc_load"
    desc = operand_def()
    indices = var_operand_def(i32)
    result = result_def()
    traits = traits_def(READS)

    def __init__(self, desc: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[desc, list(indices)], result_types=[desc.type.block])

    def verify_(self) -> None:
        block = _check_desc_indices(self.desc, self.indices)
        if plain(self.result.type) != block:
            raise VerifyException(f"desc_load result must be the descriptor's block {block}, got {self.result.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        d, idx = _parse_desc_access(parser)
        parser.parse_punctuation(":")
        dt = _parse_type_of(parser, lambda t: isinstance(t, DescType), "a !tile.desc type")
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        operands = [parser.resolve_operand(d, dt), *parser.resolve_operands(idx, [i32] * len(idx), parser.pos)]
        return cls.create(operands=operands, result_types=[rt])

    def print_body(self, printer: Printer) -> None:
        _print_desc_access(printer, self.desc, self.indices)
        _print_arrow_types(printer, self.desc.type, self.result.type)


@irdl_op_definition
class DescStoreOp(BodyThenAttrs):
    """TMA store of a block at (idx0, idx1, ...); out-of-bounds elements are dropped. Operands:
    the descriptor, the indices, then the value (the descriptor's block).

    Example:

        tile.desc_store %d[%i, %j], %v : !tile.desc<tensor<128x128xf16>>
    """

    name = "tile.desc_store"
    desc = operand_def()
    rest = var_operand_def()  # idx..., value

    def __init__(self, desc: SSAValue, indices: Sequence[SSAValue], value: SSAValue):
        super().__init__(operands=[desc, [*indices, value]])

    traits = traits_def(WRITES)

    @property
    def indices(self) -> Sequence[SSAValue]:
        return self.rest[:-1]

    @property
    def value(self) -> SSAValue:
        return self.rest[-1]

    def verify_(self) -> None:
        if not self.rest:
            raise VerifyException("desc_store takes desc, indices..., value")
        block = _check_desc_indices(self.desc, self.indices)
        if plain(self.value.type) != block:
            raise VerifyException(f"desc_store value must be the descriptor's block {block}, got {self.value.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        d, idx = _parse_desc_access(parser)
        parser.parse_punctuation(",")
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        dt = parser.parse_type()
        block = dt.block if isinstance(dt, DescType) else dt
        if parser.parse_optional_punctuation(","):  # the value's type, when it has a layout
            block = parser.parse_type()
        return cls(
            parser.resolve_operand(d, dt),
            parser.resolve_operands(idx, [i32] * len(idx), parser.pos),
            parser.resolve_operand(v, block),
        )

    def print_body(self, printer: Printer) -> None:
        _print_desc_access(printer, self.desc, self.indices)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        if isinstance(self.desc.type, DescType) and self.value.type != self.desc.type.block:
            printer.print_string(", ")
            printer.print_attribute(self.value.type)


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


Tile = Dialect(
    "tile",
    [
        ProgramIdOp,
        NumProgramsOp,
        MakeRangeOp,
        SplatOp,
        BroadcastOp,
        ExpandDimsOp,
        TransOp,
        AddPtrOp,
        LoadOp,
        StoreOp,
        DescLoadOp,
        DescStoreOp,
        DotOp,
        ReduceOp,
    ],
    [PtrType, DescType],
)

KERNEL_ATTR = "tile.kernel"
NUM_WARPS_ATTR = "tile.num_warps"
