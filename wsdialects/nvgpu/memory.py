"""`nvgpu` shared-memory ops (alloc, view, store, load of slots) and TMA copies between
global and shared memory."""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, result_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.nvgpu.common import _NoOperands, _check_i32, _i32, _parse_bar, _parse_bar_type, _print_bar
from wsdialects.nvgpu.types import SMEM_SPACE, MBarriersType
from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile import DescType
from wsdialects.tile.memory import check_reduce_kind, parse_reduce_kind


def _check_smem(t: Attribute) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise VerifyException(f"expected a shared-memory memref, got {t}")
    space = t.memory_space
    if not (isinstance(space, IntegerAttr) and space.value.data == SMEM_SPACE):
        raise VerifyException(f"shared-memory buffers live in memory space {SMEM_SPACE}, got {t}")
    return t


@functools.lru_cache(maxsize=1024)  # types are values: the same one for the same buffer type
def _slot_type(buf: MemRefType) -> TensorType:
    """The tile one slot of a `memref<DxRxCxT, 3>` buffer holds: tensor<RxCxT>."""
    return TensorType(buf.element_type, list(buf.get_shape())[1:])


# ----------------------------------------------------------------------------- shared memory

@irdl_op_definition
class SmemAllocOp(BodyThenAttrs):
    """A shared-memory buffer of D slots (the leading dim; memory space 3), 1024-byte aligned
    and swizzled for TMA / wgmma by its row width. `ws.store_staging = N` (ws-stage-in-slot):
    the `tile.desc_store` marked N stages its tile in slot 0.

    Example:

        %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3>
    """

    name = "nvgpu.smem.alloc"
    result = result_def(MemRefType)

    def __init__(self, t: MemRefType):
        super().__init__(result_types=[t])

    def verify_(self) -> None:
        t = _check_smem(self.result.type)
        if len(t.get_shape()) < 2:
            raise VerifyException(f"a shared-memory buffer is slots x tile, got {t}")

    @classmethod
    def parse_body(cls, parser: Parser):
        parser.parse_punctuation(":")
        return cls(parser.parse_type())

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


def _parse_slot(parser: Parser):
    buf = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    i = _i32(parser, parser.parse_unresolved_operand())
    parser.parse_punctuation("]")
    return buf, i


@irdl_op_definition
class SmemViewOp(BodyThenAttrs):
    """Slot `i` of a shared-memory buffer as a tile, without a copy: readers such as wgmma read
    the slot itself. After `ws-lower-layouts` the result type (with its layout) follows `->`.

    Example:

        %a = nvgpu.smem.view %buf[%s] : memref<3x128x64xf16, 3>
    """

    name = "nvgpu.smem.view"
    buffer = operand_def(MemRefType)
    index = operand_def(IntegerType)
    result = result_def(TensorType)

    def __init__(self, buffer: SSAValue, index: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[buffer, index],
                         result_types=[result_type if result_type is not None else _slot_type(buffer.type)])

    def verify_(self) -> None:
        _check_i32(self, self.index)
        if plain(self.result.type) != _slot_type(_check_smem(self.buffer.type)):
            raise VerifyException(f"a slot of {self.buffer.type} is {_slot_type(self.buffer.type)}, "
                                  f"not {self.result.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        buf, i = _parse_slot(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, MemRefType):
            parser.raise_error(f"expected a memref type, got {t}", pos, parser.pos)
        rt = parser.parse_type() if parser.parse_optional_punctuation("->") else None
        return cls(parser.resolve_operand(buf, t), i, rt)

    def print_body(self, printer: Printer) -> None:
        _print_bar(printer, self.buffer, self.index)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)
        if self.result.type != _slot_type(self.buffer.type):  # with a layout (ws-lower-layouts)
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)


@irdl_op_definition
class SmemStoreOp(BodyThenAttrs):
    """Every thread writes its elements of a tile into slot `i` of a shared-memory buffer
    (generic-proxy stores).

    Example:

        nvgpu.smem.store %v, %buf[%s] : memref<1x64x64xf32, 3>
    """

    name = "nvgpu.smem.store"
    value = operand_def(TensorType)
    buffer = operand_def(MemRefType)
    index = operand_def(IntegerType)

    def __init__(self, value: SSAValue, buffer: SSAValue, index: SSAValue):
        super().__init__(operands=[value, buffer, index])

    def verify_(self) -> None:
        _check_i32(self, self.index)
        want = _slot_type(_check_smem(self.buffer.type))
        if plain(self.value.type) != want:
            raise VerifyException(f"a slot of {self.buffer.type} holds {want}, not {self.value.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buf, i = _parse_slot(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        vt = None
        if isinstance(t, TensorType):  # `: tensor<..., #layout>, memref<...>` (after ws-lower-layouts)
            vt = t
            parser.parse_punctuation(",")
            pos = parser.pos
            t = parser.parse_type()
        if not isinstance(t, MemRefType):
            parser.raise_error(f"expected a memref type, got {t}", pos, parser.pos)
        return cls(parser.resolve_operand(v, vt if vt is not None else _slot_type(t)),
                   parser.resolve_operand(buf, t), i)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(",")
        _print_bar(printer, self.buffer, self.index)
        printer.print_string(" : ")
        if self.value.type != _slot_type(self.buffer.type):  # with a layout (ws-lower-layouts)
            printer.print_attribute(self.value.type)
            printer.print_string(", ")
        printer.print_attribute(self.buffer.type)


@irdl_op_definition
class SmemLoadOp(IRDLOperation):
    """Every thread reads its elements of a tile in shared memory into registers, in the
    result's layout: what a slot tile read element by element becomes (`ws-lower-layouts`
    inserts it). The tile is unchanged; only the layout differs.

    Example:

        %r = nvgpu.smem.load %a : tensor<64x64xf32, #layout.shared<swizzle = 128, order = [1, 0]>> -> tensor<64x64xf32, #layout.wgmma<warp_groups = 1>>
    """

    name = "nvgpu.smem.load"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        if plain(self.src.type) != plain(self.result.type):
            raise VerifyException(f"nvgpu.smem.load reads a tile as it is: {self.src.type} -> {self.result.type}")


# ----------------------------------------------------------------------------- TMA

def _check_desc_slot(desc_t: Attribute, buf_t: Attribute, ncoords: int) -> None:
    if not isinstance(desc_t, DescType):
        raise VerifyException(f"expected a !tile.desc, got {desc_t}")
    buf = _check_smem(buf_t)
    block = desc_t.block
    if _slot_type(buf) != plain(block):
        raise VerifyException(f"TMA box {block} does not match a slot of {buf}")
    if ncoords != len(block.get_shape()) and not (len(block.get_shape()) == 2 and ncoords == 3):
        raise VerifyException(f"{len(block.get_shape())}-D box needs {len(block.get_shape())} coordinates, "
                              f"got {ncoords}")


@irdl_op_definition
class TmaAsyncLoadOp(BodyThenAttrs):
    """One elected thread starts a TMA copy of the box at `coords` into slot `i` of a buffer;
    the copy completes its bytes on barrier `j` (no arrival of its own). The descriptor's
    box must be the buffer's slot tile.

    Example:

        nvgpu.tma.async_load %d[%m, %k] -> %buf[%s], %full[%s] : !tile.desc<tensor<128x64xf16>>, memref<3x128x64xf16, 3>, !nvgpu.mbarriers<3>
    """

    name = "nvgpu.tma.async_load"
    desc = operand_def(DescType)
    coords = var_operand_def(IntegerType)
    buffer = operand_def(MemRefType)
    index = operand_def(IntegerType)
    barriers = operand_def(MBarriersType)
    bar_index = operand_def(IntegerType)

    def __init__(self, desc, coords, buffer, index, barriers, bar_index):
        super().__init__(operands=[desc, list(coords), buffer, index, barriers, bar_index])

    def verify_(self) -> None:
        _check_i32(self, self.index, self.bar_index, *self.coords)
        _check_desc_slot(self.desc.type, self.buffer.type, len(self.coords))

    @classmethod
    def parse_body(cls, parser: Parser):
        d = parser.parse_unresolved_operand()
        coords = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation("->")
        buf, i = _parse_slot(parser)
        parser.parse_punctuation(",")
        b, j = _parse_bar(parser)
        parser.parse_punctuation(":")
        dt = parser.parse_type()
        parser.parse_punctuation(",")
        bt = parser.parse_type()
        parser.parse_punctuation(",")
        mt = _parse_bar_type(parser)
        return cls(parser.resolve_operand(d, dt), [_i32(parser, c) for c in coords],
                   parser.resolve_operand(buf, bt), i, parser.resolve_operand(b, mt), j)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.desc)
        printer.print_string("[")
        printer.print_list(self.coords, printer.print_operand)
        printer.print_string("] ->")
        _print_bar(printer, self.buffer, self.index)
        printer.print_string(",")
        _print_bar(printer, self.barriers, self.bar_index)
        printer.print_string(" : ")
        printer.print_list([self.desc.type, self.buffer.type, self.barriers.type], printer.print_attribute)


@irdl_op_definition
class TmaAsyncStoreOp(BodyThenAttrs):
    """One elected thread starts a TMA store of slot `i` to the box at `coords` (out-of-bounds
    parts dropped) and commits it as a bulk group. With a reduction kind after the op name
    (`add`, `min`, `max`, as `tile.desc_store`'s) it is TMA's reduce
    (`cp.reduce.async.bulk.tensor`): each element combined with the one in global memory.

    Example:

        nvgpu.tma.async_store %buf[%s] -> %d[%m, %n] : memref<1x64x64xf32, 3>, !tile.desc<tensor<64x64xf32>>
        nvgpu.tma.async_store add %buf[%s] -> %d[%m, %n] : memref<1x64x64xf32, 3>, !tile.desc<tensor<64x64xf32>>
    """

    name = "nvgpu.tma.async_store"
    buffer = operand_def(MemRefType)
    index = operand_def(IntegerType)
    desc = operand_def(DescType)
    coords = var_operand_def(IntegerType)
    reduce = opt_prop_def(StringAttr)

    def __init__(self, buffer, index, desc, coords, reduce: str | None = None):
        super().__init__(operands=[buffer, index, desc, list(coords)],
                         properties={"reduce": StringAttr(reduce)} if reduce is not None else {})

    @property
    def reduce_kind(self) -> str | None:
        return self.reduce.data if self.reduce is not None else None

    def verify_(self) -> None:
        _check_i32(self, self.index, *self.coords)
        _check_desc_slot(self.desc.type, self.buffer.type, len(self.coords))
        if self.reduce_kind is not None:
            check_reduce_kind("tma.async_store", self.reduce_kind, self.desc.type.block.element_type)

    @classmethod
    def parse_body(cls, parser: Parser):
        kind = parse_reduce_kind(parser)
        buf, i = _parse_slot(parser)
        parser.parse_punctuation("->")
        d = parser.parse_unresolved_operand()
        coords = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        bt = parser.parse_type()
        parser.parse_punctuation(",")
        dt = parser.parse_type()
        return cls(parser.resolve_operand(buf, bt), i, parser.resolve_operand(d, dt),
                   [_i32(parser, c) for c in coords], kind)

    def print_body(self, printer: Printer) -> None:
        if self.reduce_kind is not None:
            printer.print_string(f" {self.reduce_kind}")
        _print_bar(printer, self.buffer, self.index)
        printer.print_string(" -> ")
        printer.print_operand(self.desc)
        printer.print_string("[")
        printer.print_list(self.coords, printer.print_operand)
        printer.print_string("] : ")
        printer.print_list([self.buffer.type, self.desc.type], printer.print_attribute)


@irdl_op_definition
class TmaStoreWaitOp(_NoOperands):
    """The issuing thread waits until its committed TMA stores have read their shared memory
    (cp.async.bulk.wait_group.read 0).

    Example:

        nvgpu.tma.store_wait
    """

    name = "nvgpu.tma.store_wait"


STAGING_ATTR = "ws.store_staging"  # pairs a tile.desc_store with the ring (slot) it is staged in


def staging_alloc(store) -> SmemAllocOp | None:
    """The one-slot `nvgpu.smem.alloc` in which ws-stage-in-slot staged the `tile.desc_store`
    `store` (after ws-lower-aref; None before, or for a store with a staging buffer of its own)."""
    mark = store.attributes.get(STAGING_ATTR)
    f = store.parent_op()
    while mark is not None and f is not None and f.name != "func.func":
        f = f.parent_op()
    if mark is None or f is None:
        return None
    return next((o for o in f.body.blocks[0].ops
                 if isinstance(o, SmemAllocOp) and o.attributes.get(STAGING_ATTR) == mark), None)
