"""The `nvgpu` dialect: Hopper's asynchronous machinery at warp-group level
(mbarriers, TMA, wgmma, proxy fences, setmaxnreg, warp-group dispatch).

`ws-lower-aref` and `ws-lower-warp-groups` produce it; the LLVM IR emitter
(`wsdialects/lower/llvm/`) turns each op into inline PTX. The ops are
collective over the warps that execute them (a partition / dispatch branch):
who actually issues an instruction (one elected thread, lane 0 of each warp,
every thread) is part of each op's meaning and is written in its docstring.
Slot indices and parities are i32.

    %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
    nvgpu.mbarrier.init %full[%c0] count 1 : !nvgpu.mbarriers<3>
    nvgpu.mbarrier.try_wait.parity %empty[%s], %p : !nvgpu.mbarriers<3>
    nvgpu.mbarrier.arrive_expect_tx %full[%s] bytes 49152 : !nvgpu.mbarriers<3>
    nvgpu.tma.async_load %desc[%m, %k] -> %buf[%s], %full[%s] : !tile.desc<tensor<128x64xf16>>, memref<3x128x64xf16, 3>, !nvgpu.mbarriers<3>
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Block, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.mma import WaitOp as _MmaWait
from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile import DescType, DotOp

SMEM_SPACE = 3  # memref memory space of CTA shared memory
REGFILE = 65536  # 32-bit registers per SM (and per CTA at one CTA per SM)
REG_MIN, REG_MAX = 24, 256  # setmaxnreg bounds (multiples of 8)


# ----------------------------------------------------------------------------- types

@irdl_attr_definition
class MBarriersType(ParametrizedAttribute, TypeAttribute):
    """`num` mbarriers (64-bit each, 8-byte aligned) in shared memory.

    Example:

        !nvgpu.mbarriers<3>
    """

    name = "nvgpu.mbarriers"
    num: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, num: int | IntAttr):
        super().__init__(num)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        n = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        return (IntAttr(n),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.num.data}>")

    def verify(self) -> None:
        if self.num.data < 1:
            raise VerifyException(f"!nvgpu.mbarriers needs at least one barrier, got {self.num.data}")


# ----------------------------------------------------------------------------- helpers

def _i32(parser: Parser, unresolved):
    return parser.resolve_operand(unresolved, i32)


def _parse_bar(parser: Parser):
    """`%b[%i]` -> (unresolved barrier group, resolved i32 index)."""
    b = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    i = _i32(parser, parser.parse_unresolved_operand())
    parser.parse_punctuation("]")
    return b, i


def _print_bar(printer: Printer, b: SSAValue, i: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_operand(b)
    printer.print_string("[")
    printer.print_operand(i)
    printer.print_string("]")


def _parse_bar_type(parser: Parser) -> MBarriersType:
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, MBarriersType):
        parser.raise_error(f"expected an !nvgpu.mbarriers type, got {t}", pos, parser.pos)
    return t


def _check_i32(op: IRDLOperation, *vals: SSAValue) -> None:
    for v in vals:
        if v.type != i32:
            raise VerifyException(f"slot indices and parities must be i32, got {v.type}")


def _check_smem(t: Attribute) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise VerifyException(f"expected a shared-memory memref, got {t}")
    space = t.memory_space
    if not (isinstance(space, IntegerAttr) and space.value.data == SMEM_SPACE):
        raise VerifyException(f"shared-memory buffers live in memory space {SMEM_SPACE}, got {t}")
    return t


def _slot_type(buf: MemRefType) -> TensorType:
    """The tile one slot of a `memref<DxRxCxT, 3>` buffer holds: tensor<RxCxT>."""
    return TensorType(buf.element_type, list(buf.get_shape())[1:])


# ----------------------------------------------------------------------------- mbarrier

class _NoOperands(BodyThenAttrs):
    """An op written as its name alone (plus an optional attribute dictionary)."""

    @classmethod
    def parse_body(cls, parser: Parser):
        return cls()

    def print_body(self, printer: Printer) -> None:
        pass


@irdl_op_definition
class MBarrierCreateOp(BodyThenAttrs):
    """Allocates `num` mbarriers in shared memory (not yet initialized).

    Example:

        %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
    """

    name = "nvgpu.mbarrier.create"
    result = result_def(MBarriersType)

    def __init__(self, num: int):
        super().__init__(result_types=[MBarriersType(num)])

    @classmethod
    def parse_body(cls, parser: Parser):
        parser.parse_punctuation(":")
        op = cls(_parse_bar_type(parser).num.data)
        return op

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class MBarrierInitOp(BodyThenAttrs):
    """One thread initializes barrier `i` of a group to expect `count` arrivals per phase
    (phase 0, parity 0 incomplete).

    Example:

        nvgpu.mbarrier.init %full[%c0] count 1 : !nvgpu.mbarriers<3>
    """

    name = "nvgpu.mbarrier.init"
    barriers = operand_def(MBarriersType)
    index = operand_def(IntegerType)
    count = prop_def(IntegerAttr)

    def __init__(self, barriers: SSAValue, index: SSAValue, count: int):
        super().__init__(operands=[barriers, index], properties={"count": IntegerAttr(count, 32)})

    def verify_(self) -> None:
        _check_i32(self, self.index)
        if self.count.value.data < 1:
            raise VerifyException(f"mbarrier arrival count must be >= 1, got {self.count.value.data}")

    @classmethod
    def parse_body(cls, parser: Parser):
        b, i = _parse_bar(parser)
        parser.parse_keyword("count")
        n = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        return cls(parser.resolve_operand(b, _parse_bar_type(parser)), i, n)

    def print_body(self, printer: Printer) -> None:
        _print_bar(printer, self.barriers, self.index)
        printer.print_string(f" count {self.count.value.data} : ")
        printer.print_attribute(self.barriers.type)


ARRIVE_SCOPES = ("per_warp", "once")


@irdl_op_definition
class MBarrierArriveOp(BodyThenAttrs):
    """Arrives on barrier `i`: `per_warp` = lane 0 of every executing warp arrives (as many
    arrivals as warps), `once` = one elected thread arrives.

    Example:

        nvgpu.mbarrier.arrive %empty[%s] per_warp : !nvgpu.mbarriers<3>
    """

    name = "nvgpu.mbarrier.arrive"
    barriers = operand_def(MBarriersType)
    index = operand_def(IntegerType)
    scope = prop_def(StringAttr)

    def __init__(self, barriers: SSAValue, index: SSAValue, scope: str = "per_warp"):
        super().__init__(operands=[barriers, index], properties={"scope": StringAttr(scope)})

    def verify_(self) -> None:
        _check_i32(self, self.index)
        if self.scope.data not in ARRIVE_SCOPES:
            raise VerifyException(f"arrive scope must be one of {', '.join(ARRIVE_SCOPES)}, got '{self.scope.data}'")

    @classmethod
    def parse_body(cls, parser: Parser):
        b, i = _parse_bar(parser)
        pos = parser.pos
        scope = parser.parse_optional_identifier()
        if scope not in ARRIVE_SCOPES:
            parser.raise_error(f"expected an arrive scope ({', '.join(ARRIVE_SCOPES)})", pos, parser.pos)
        parser.parse_punctuation(":")
        return cls(parser.resolve_operand(b, _parse_bar_type(parser)), i, scope)

    def print_body(self, printer: Printer) -> None:
        _print_bar(printer, self.barriers, self.index)
        printer.print_string(f" {self.scope.data} : ")
        printer.print_attribute(self.barriers.type)


@irdl_op_definition
class MBarrierArriveExpectTxOp(BodyThenAttrs):
    """One elected thread arrives on barrier `i` and raises its transaction count by `bytes`
    (in [1, 2^20)); the phase completes when the TMA copies have delivered them.

    Example:

        nvgpu.mbarrier.arrive_expect_tx %full[%s] bytes 49152 : !nvgpu.mbarriers<3>
    """

    name = "nvgpu.mbarrier.arrive_expect_tx"
    barriers = operand_def(MBarriersType)
    index = operand_def(IntegerType)
    bytes = prop_def(IntegerAttr)

    def __init__(self, barriers: SSAValue, index: SSAValue, nbytes: int):
        super().__init__(operands=[barriers, index], properties={"bytes": IntegerAttr(nbytes, 32)})

    def verify_(self) -> None:
        _check_i32(self, self.index)
        n = self.bytes.value.data
        if n <= 0 or n >= 1 << 20:
            raise VerifyException(f"transaction bytes must be in [1, 2^20), got {n}")

    @classmethod
    def parse_body(cls, parser: Parser):
        b, i = _parse_bar(parser)
        parser.parse_keyword("bytes")
        n = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        return cls(parser.resolve_operand(b, _parse_bar_type(parser)), i, n)

    def print_body(self, printer: Printer) -> None:
        _print_bar(printer, self.barriers, self.index)
        printer.print_string(f" bytes {self.bytes.value.data} : ")
        printer.print_attribute(self.barriers.type)


@irdl_op_definition
class MBarrierTryWaitParityOp(BodyThenAttrs):
    """Every thread waits (try_wait.parity in a loop) until the phase of barrier `i` with
    parity `p` has completed; a fresh barrier counts parity 1 as completed.

    Example:

        nvgpu.mbarrier.try_wait.parity %full[%s], %p : !nvgpu.mbarriers<3>
    """

    name = "nvgpu.mbarrier.try_wait.parity"
    barriers = operand_def(MBarriersType)
    index = operand_def(IntegerType)
    parity = operand_def(IntegerType)

    def __init__(self, barriers: SSAValue, index: SSAValue, parity: SSAValue):
        super().__init__(operands=[barriers, index, parity])

    def verify_(self) -> None:
        _check_i32(self, self.index, self.parity)

    @classmethod
    def parse_body(cls, parser: Parser):
        b, i = _parse_bar(parser)
        parser.parse_punctuation(",")
        p = _i32(parser, parser.parse_unresolved_operand())
        parser.parse_punctuation(":")
        return cls(parser.resolve_operand(b, _parse_bar_type(parser)), i, p)

    def print_body(self, printer: Printer) -> None:
        _print_bar(printer, self.barriers, self.index)
        printer.print_string(", ")
        printer.print_operand(self.parity)
        printer.print_string(" : ")
        printer.print_attribute(self.barriers.type)


# ----------------------------------------------------------------------------- fences

@irdl_op_definition
class FenceMBarrierInitOp(_NoOperands):
    """Makes barrier initializations visible before their first use
    (fence.mbarrier_init.release.cluster).

    Example:

        nvgpu.fence.mbarrier_init
    """

    name = "nvgpu.fence.mbarrier_init"


@irdl_op_definition
class FenceProxyAsyncOp(_NoOperands):
    """Orders this thread's generic shared-memory writes before later async-proxy reads of
    them (wgmma, TMA store): fence.proxy.async.shared::cta.

    Example:

        nvgpu.fence.proxy_async
    """

    name = "nvgpu.fence.proxy_async"


# ----------------------------------------------------------------------------- shared memory

@irdl_op_definition
class SmemAllocOp(BodyThenAttrs):
    """A shared-memory buffer of D slots (the leading dim; memory space 3), 1024-byte aligned
    and swizzled for TMA / wgmma by its row width.

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
    parts dropped) and commits it as a bulk group.

    Example:

        nvgpu.tma.async_store %buf[%s] -> %d[%m, %n] : memref<1x64x64xf32, 3>, !tile.desc<tensor<64x64xf32>>
    """

    name = "nvgpu.tma.async_store"
    buffer = operand_def(MemRefType)
    index = operand_def(IntegerType)
    desc = operand_def(DescType)
    coords = var_operand_def(IntegerType)

    def __init__(self, buffer, index, desc, coords):
        super().__init__(operands=[buffer, index, desc, list(coords)])

    def verify_(self) -> None:
        _check_i32(self, self.index, *self.coords)
        _check_desc_slot(self.desc.type, self.buffer.type, len(self.coords))

    @classmethod
    def parse_body(cls, parser: Parser):
        buf, i = _parse_slot(parser)
        parser.parse_punctuation("->")
        d = parser.parse_unresolved_operand()
        coords = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        bt = parser.parse_type()
        parser.parse_punctuation(",")
        dt = parser.parse_type()
        return cls(parser.resolve_operand(buf, bt), i, parser.resolve_operand(d, dt), [_i32(parser, c) for c in coords])

    def print_body(self, printer: Printer) -> None:
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


# ----------------------------------------------------------------------------- wgmma

@irdl_op_definition
class WgmmaFenceOp(_NoOperands):
    """Orders register and shared-memory accesses before the next wgmma
    (wgmma.fence.sync.aligned).

    Example:

        nvgpu.wgmma.fence
    """

    name = "nvgpu.wgmma.fence"


@irdl_op_definition
class WgmmaMmaAsyncOp(BodyThenAttrs):
    """The executing warp groups issue `acc + a·b` as wgmma.mma_async instructions (A and B
    from shared-memory slots, or A in registers; the accumulator in registers); the result
    is in flight until a wait_group retires its commit group. Same operand rules as
    `tile.dot`.

    Example:

        %d = nvgpu.wgmma.mma_async %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    """

    name = "nvgpu.wgmma.mma_async"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    acc = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue):
        super().__init__(operands=[a, b, acc], result_types=[acc.type])

    def verify_(self) -> None:
        DotOp.verify_(self)

    parse_body = classmethod(DotOp.parse_body.__func__)
    print_body = DotOp.print_body


@irdl_op_definition
class WgmmaCommitGroupOp(_NoOperands):
    """Closes the group of wgmmas issued since the last commit
    (wgmma.commit_group.sync.aligned).

    Example:

        nvgpu.wgmma.commit_group
    """

    name = "nvgpu.wgmma.commit_group"


@irdl_op_definition
class WgmmaWaitGroupOp(IRDLOperation):
    """Waits until at most `pending` (0 to 7) commit groups are in flight
    (wgmma.wait_group.sync.aligned N); returns the accumulators, retired where their group
    is.

    Example:

        %r = nvgpu.wgmma.wait_group %d {pending = 1} : tensor<128x256xf32>
    """

    name = "nvgpu.wgmma.wait_group"
    pending = prop_def(IntegerAttr)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)

    def __init__(self, values: Sequence[SSAValue], pending: int):
        super().__init__(operands=[list(values)], result_types=[[v.type for v in values]],
                         properties={"pending": IntegerAttr(pending, 32)})

    @property
    def num_pending(self) -> int:
        return self.pending.value.data

    def verify_(self) -> None:
        if not 0 <= self.num_pending <= 7:
            raise VerifyException(f"wgmma.wait_group pending must be in [0, 7], got {self.num_pending}")

    # Same form as mma.wait: `nvgpu.wgmma.wait_group %d {pending = 1} : T`.
    parse = classmethod(_MmaWait.parse.__func__)
    print = _MmaWait.print


# ----------------------------------------------------------------------------- registers, dispatch

@irdl_op_definition
class SetMaxNRegOp(BodyThenAttrs):
    """Every warp of the executing warp groups moves its register budget down (`dec`) or up
    (`inc`) to `regs` per thread, a multiple of 8 in [24, 256]
    (setmaxnreg.{dec,inc}.sync.aligned.u32). It must be the first op of its
    `nvgpu.wg.branch`.

    Example:

        nvgpu.wg.dispatch threads 128 {
          nvgpu.wg.branch warps 0 to 4 "consumer" {
            nvgpu.setmaxnreg dec 240
          }
        }
    """

    name = "nvgpu.setmaxnreg"
    action = prop_def(StringAttr)
    regs = prop_def(IntegerAttr)

    def __init__(self, action: str, regs: int):
        super().__init__(properties={"action": StringAttr(action), "regs": IntegerAttr(regs, 32)})

    def verify_(self) -> None:
        if self.action.data not in ("inc", "dec"):
            raise VerifyException(f"setmaxnreg action must be inc or dec, got '{self.action.data}'")
        r = self.regs.value.data
        if r % 8 or not REG_MIN <= r <= REG_MAX:
            raise VerifyException(f"setmaxnreg needs a multiple of 8 in [{REG_MIN}, {REG_MAX}], got {r}")

    @classmethod
    def parse_body(cls, parser: Parser):
        pos = parser.pos
        action = parser.parse_optional_identifier()
        if action not in ("inc", "dec"):
            parser.raise_error("expected 'inc' or 'dec'", pos, parser.pos)
        return cls(action, parser.parse_integer(allow_boolean=False))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {self.action.data} {self.regs.value.data}")


@irdl_op_definition
class BranchOp(IRDLOperation):
    """Warps [first, first + warps) of the CTA run the body: whole warp groups, directly
    inside an `nvgpu.wg.dispatch`, with a role name.

    Example:

        nvgpu.wg.dispatch threads 384 {
          nvgpu.wg.branch warps 0 to 4 "producer" {
            nvgpu.setmaxnreg dec 40
          }
          nvgpu.wg.branch warps 4 to 12 "consumer" {
            nvgpu.setmaxnreg inc 232
          }
        }
    """

    name = "nvgpu.wg.branch"
    first = prop_def(IntegerAttr)
    warps = prop_def(IntegerAttr)
    role = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, first: int, warps: int, role: str, body: Region | None = None):
        super().__init__(properties={"first": IntegerAttr(first, 32), "warps": IntegerAttr(warps, 32),
                                     "role": StringAttr(role)}, regions=[body or Region(Block())])

    @property
    def num_warps(self) -> int:
        return self.warps.value.data

    @property
    def first_warp(self) -> int:
        return self.first.value.data

    @property
    def regs(self) -> int | None:
        ops = list(self.body.block.ops) if self.body.blocks else []
        return ops[0].regs.value.data if ops and isinstance(ops[0], SetMaxNRegOp) else None

    def verify_(self) -> None:
        f, n = self.first_warp, self.num_warps
        if f % 4 or n % 4 or n <= 0:
            raise VerifyException(f"a branch is whole warp groups: first warp {f} and warp count {n} must be "
                                  "multiples of 4")
        if not isinstance(self.parent_op(), DispatchOp):
            raise VerifyException("nvgpu.wg.branch must be directly inside nvgpu.wg.dispatch")
        for o in self.body.walk():
            if isinstance(o, SetMaxNRegOp) and o is not next(iter(self.body.block.ops)):
                raise VerifyException("nvgpu.setmaxnreg must be the first op of its branch")

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_keyword("warps")
        first = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("to")
        end = parser.parse_integer(allow_boolean=False)
        role = parser.parse_optional_str_literal()
        if role is None:
            role = parser.parse_identifier()
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        op = cls(first, end - first, role, body)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" warps {self.first_warp} to {self.first_warp + self.num_warps} ")
        printer.print_string_literal(self.role.data)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class DispatchOp(IRDLOperation):
    """Warp-group dispatch: the CTA's `threads` threads (whole warp groups, at most 1024)
    split into branches by warp index, all running at the same time; the branches cover
    the warps in order and their register budgets must fit the register file (65536).

    Example:

        nvgpu.wg.dispatch threads 256 {
          nvgpu.wg.branch warps 0 to 4 "producer" {
          }
          nvgpu.wg.branch warps 4 to 8 "consumer" {
          }
        }
    """

    name = "nvgpu.wg.dispatch"
    threads = prop_def(IntegerAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, threads: int, branches: list[BranchOp] | None = None, body: Region | None = None):
        super().__init__(properties={"threads": IntegerAttr(threads, 32)},
                         regions=[body or Region(Block(branches or []))])

    @property
    def num_threads(self) -> int:
        return self.threads.value.data

    @property
    def branches(self) -> list[BranchOp]:
        return [o for o in self.body.block.ops if isinstance(o, BranchOp)]

    def entry_regs(self) -> int:
        """Registers per thread at launch (the cap `nvvm.maxntid` gives ptxas)."""
        return min(255, REGFILE // max(self.num_threads, 1)) // 8 * 8

    def verify_(self) -> None:
        n = self.num_threads
        if n <= 0 or n % 128 or n > 1024:
            raise VerifyException(f"a dispatch runs whole warp groups, at most 1024 threads: got {n}")
        ops = list(self.body.block.ops)
        if any(not isinstance(o, BranchOp) for o in ops):
            raise VerifyException("nvgpu.wg.dispatch holds only nvgpu.wg.branch ops")
        nxt, budget = 0, 0
        for b in self.branches:
            if b.first_warp != nxt:
                raise VerifyException(f"branches must cover the warps in order without gaps: expected a branch at "
                                      f"warp {nxt}, got {b.first_warp}")
            nxt += b.num_warps
            budget += (b.regs or self.entry_regs()) * 32 * b.num_warps
        if nxt * 32 != n:
            raise VerifyException(f"branches cover {nxt * 32} threads, the dispatch has {n}")
        if budget > REGFILE:
            raise VerifyException(f"register budgets need {budget} registers, the register file has {REGFILE}")

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_keyword("threads")
        n = parser.parse_integer(allow_boolean=False)
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        op = cls(n, body=body)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" threads {self.num_threads} ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


NVGPU_OPS = [
    MBarrierCreateOp, MBarrierInitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp, MBarrierTryWaitParityOp,
    FenceMBarrierInitOp, FenceProxyAsyncOp, SmemAllocOp, SmemViewOp, SmemStoreOp, SmemLoadOp, TmaAsyncLoadOp,
    TmaAsyncStoreOp, TmaStoreWaitOp, WgmmaFenceOp, WgmmaMmaAsyncOp, WgmmaCommitGroupOp, WgmmaWaitGroupOp,
    SetMaxNRegOp, BranchOp, DispatchOp,
]
Nvgpu = Dialect("nvgpu", NVGPU_OPS, [MBarriersType])
