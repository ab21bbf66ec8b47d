"""`tile` ops that address and move memory: `tile.addptr`, `tile.load` and `tile.store`
through pointers, `tile.desc_load` and `tile.desc_store` (plain or reducing) through TMA
descriptors."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerType, StringAttr, TensorType, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.common import (
    READS,
    WRITES,
    _is_ptr_like,
    _parse_operand_list,
    _parse_type_of,
    _print_arrow_types,
)
from wsdialects.tile.types import DescType, PtrType, element_type, shape_of

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


# The reductions a TMA store can apply (`cp.reduce.async.bulk.tensor`), and the element types
# each is lowered for.
DESC_REDUCE_KINDS = {"add": ("f32", "f16", "bf16", "i32"), "min": ("i32",), "max": ("i32",)}


def check_reduce_kind(op_name: str, kind: str, elem) -> None:
    """The verifier's check of a TMA reduction `kind` of `elem` elements (tile.desc_store,
    nvgpu.tma.async_store)."""
    if kind not in DESC_REDUCE_KINDS:
        raise VerifyException(f"{op_name} reduction must be one of {', '.join(DESC_REDUCE_KINDS)}, got '{kind}'")
    if str(elem) not in DESC_REDUCE_KINDS[kind]:
        raise VerifyException(f"{op_name} {kind} takes {', '.join(DESC_REDUCE_KINDS[kind])} blocks, got {elem}")


def parse_reduce_kind(parser: Parser) -> str | None:
    """An optional reduction kind before an op's operands (`add`), None where there is none."""
    pos = parser.pos
    kind = parser.parse_optional_identifier()
    if kind is not None and kind not in DESC_REDUCE_KINDS:
        parser.raise_error(f"expected a reduction kind ({', '.join(DESC_REDUCE_KINDS)}) or an operand, "
                           f"got '{kind}'", pos, parser.pos)
    return kind


@irdl_op_definition
class DescStoreOp(BodyThenAttrs):
    """TMA store of a block at (idx0, idx1, ...); elements past the tensor's end are dropped.
    The indices must be >= 0: unlike a load, a store's box may not start before the tensor
    (the interpreter reports it; the hardware stops the kernel). Operands: the descriptor, the
    indices, then the value (the descriptor's block).

    With a reduction kind after the op name (`add`; `min` / `max` for i32), the store is TMA's
    reduce (Triton's `desc.atomic_add`, TTIR's `tt.descriptor_reduce add`): each element of the
    block is combined with the one in memory, atomically per element, so programs storing
    overlapping blocks accumulate (split-K, a gradient summed over blocks) instead of the last
    write winning; out-of-bounds elements are dropped as a store's are. `add` takes f32, f16,
    bf16 and i32 blocks (f16 and bf16 added without flushing subnormals), `min` / `max` i32
    (signed). On Hopper it is `cp.reduce.async.bulk.tensor.Nd.global.shared::cta.add.tile`
    from the same staging buffer a plain store uses. The reduction is asynchronous and orders
    nothing else (unlike `tile.atomic_add`, acq_rel): what other programs read of the tensor
    while the kernel runs is not defined, the sum is there when it has finished.

    Example:

        tile.desc_store %d[%i, %j], %v : !tile.desc<tensor<128x128xf16>>
        tile.desc_store add %acc[%i, %j], %part : !tile.desc<tensor<128x128xf32>>
    """

    name = "tile.desc_store"
    desc = operand_def()
    rest = var_operand_def()  # idx..., value
    reduce = opt_prop_def(StringAttr)

    def __init__(self, desc: SSAValue, indices: Sequence[SSAValue], value: SSAValue, reduce: str | None = None):
        super().__init__(operands=[desc, [*indices, value]],
                         properties={"reduce": StringAttr(reduce)} if reduce is not None else {})

    traits = traits_def(WRITES)

    @property
    def indices(self) -> Sequence[SSAValue]:
        return self.rest[:-1]

    @property
    def value(self) -> SSAValue:
        return self.rest[-1]

    @property
    def reduce_kind(self) -> str | None:
        """The reduction (`add`, `min`, `max`) of a reducing store, None for a plain store."""
        return self.reduce.data if self.reduce is not None else None

    def verify_(self) -> None:
        if not self.rest:
            raise VerifyException("desc_store takes desc, indices..., value")
        block = _check_desc_indices(self.desc, self.indices)
        if plain(self.value.type) != block:
            raise VerifyException(f"desc_store value must be the descriptor's block {block}, got {self.value.type}")
        if self.reduce_kind is not None:
            check_reduce_kind("desc_store", self.reduce_kind, block.element_type)

    @classmethod
    def parse_body(cls, parser: Parser):
        kind = parse_reduce_kind(parser)
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
            kind,
        )

    def print_body(self, printer: Printer) -> None:
        if self.reduce_kind is not None:
            printer.print_string(f" {self.reduce_kind}")
        _print_desc_access(printer, self.desc, self.indices)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        if isinstance(self.desc.type, DescType) and self.value.type != self.desc.type.block:
            printer.print_string(", ")
            printer.print_attribute(self.value.type)
