"""The `layout` dialect: where the elements of a tile live once it runs on threads.

A layout is the encoding of a tensor type (`tensor<128x256xf32, #layout.wgmma<...>>`);
`ws-lower-layouts` gives one to every tile of a warp-specialized kernel, and the
LLVM emitter reads it instead of guessing. Layouts never change what a tile holds:
tile-level verifiers and the interpreter compare tiles without their encodings.

    #layout.wgmma<warp_groups = 2>                        the wgmma accumulator fragment
    #layout.slice<dim = 1, parent = #layout.wgmma<...>>   the rows of it (dim 1 removed)
    #layout.permute<order = [1, 0], parent = ...>         a transposition of a register layout
    #layout.pair<parent = ...>                             a minor dim of 2 in two registers of a thread
    #layout.operand_a<parent = #layout.wgmma<...>>         wgmma's 8-bit register-A fragment (fp8 P in P·V)
    #layout.blocked<lanes = [8, 4], warps = [4, 2]>        4x4 blocks per thread (a copy with 32-bit accesses)
    #layout.transpose_copy<warps = [1, 4]>                 words of ldmatrix.trans / stmatrix (an 8-bit transposing copy)
    #layout.shared<swizzle = 128, order = [1, 0]>         a tile in swizzled shared memory
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, TensorType
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

SWIZZLES = (0, 32, 64, 128)


def _parse_key(parser: AttrParser, key: str) -> None:
    pos = parser.pos
    got = parser.parse_optional_identifier()
    if got != key:
        parser.raise_error(f"expected '{key}'", pos, parser.pos)
    parser.parse_punctuation("=")


def _parse_order(parser: AttrParser) -> ArrayAttr:
    xs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                           lambda: parser.parse_integer(allow_boolean=False))
    return ArrayAttr([IntAttr(x) for x in xs])


def _check_order(order: ArrayAttr, what: str) -> None:
    xs = [x.data for x in order.data]
    if sorted(xs) != list(range(len(xs))):
        raise VerifyException(f"{what}: order {xs} is not a permutation")


def _order_str(order: ArrayAttr) -> str:
    return "[" + ", ".join(str(x.data) for x in order.data) + "]"


INTERLEAVE = 8  # FlashAttention-3's order of an fp8 P·V's keys (`interleaved`)


def interleaved(i: int) -> int:
    """The element at stored position `i` under `interleave = 8`: within each 16, position
    4c + 2 i1 + i0 holds element 8 i1 + 2c + i0 (the pairs 2c, 2c + 1 and 8 + 2c, 9 + 2c that
    lane c of a quad holds in the accumulator fragment side by side)."""
    b, p = divmod(i, 16)
    return 16 * b + 8 * ((p >> 1) & 1) + 2 * (p >> 2) + (p & 1)


def _parse_interleave(parser: AttrParser) -> IntAttr:
    """An optional `, interleave = 8` before the closing `>` (absent: 0)."""
    if parser.parse_optional_punctuation(",") is None:
        return IntAttr(0)
    _parse_key(parser, "interleave")
    return IntAttr(parser.parse_integer(allow_boolean=False, allow_negative=False))


def _interleave_str(x: IntAttr) -> str:
    return f", interleave = {x.data}" if x.data else ""


def _bad_interleave(x: IntAttr) -> bool:
    return x.data not in (0, INTERLEAVE)


class Layout(ParametrizedAttribute):
    """A distribution of a tile's elements over the threads (or shared memory) of a CTA."""

    def rank(self) -> int | None:
        """The rank of the tiles this layout fits (None: any rank)."""
        return None


@irdl_attr_definition
class WgmmaLayout(Layout):
    """The accumulator fragment of wgmma over `warp_groups` warp groups: rows in blocks of 64,
    block b held by warp group b mod G; in a block, warp w holds rows 16w..16w+15, lane l
    rows l/4 and l/4 + 8 and, every 8 columns, columns 2(l%4) and 2(l%4) + 1. A dimension
    of size 1 is held by every thread (a broadcast operand).

    Example:

        tensor<128x256xf32, #layout.wgmma<warp_groups = 2>>
    """

    name = "layout.wgmma"
    warp_groups: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, warp_groups: int | IntAttr):
        super().__init__(warp_groups)

    @property
    def groups(self) -> int:
        return self.warp_groups.data

    def rank(self) -> int | None:
        return 2

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        _parse_key(parser, "warp_groups")
        g = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        return (IntAttr(g),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<warp_groups = {self.groups}>")

    def verify(self) -> None:
        if self.groups < 1:
            raise VerifyException(f"#layout.wgmma needs at least one warp group, got {self.groups}")


@irdl_attr_definition
class SliceLayout(Layout):
    """`parent` with dimension `dim` removed: element i lives in every thread that holds an
    element of the parent whose other index is i (a row vector of the accumulator is
    `dim = 1`: each thread has the values of its rows).

    Example:

        tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 2>>>
    """

    name = "layout.slice"
    dim: IntAttr = param_def(converter=IntAttr.get)
    parent: Layout = param_def(Layout)

    def __init__(self, dim: int | IntAttr, parent: Layout):
        super().__init__(dim, parent)

    def rank(self) -> int | None:
        r = self.parent.rank()
        return None if r is None else r - 1

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        _parse_key(parser, "dim")
        d = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(",")
        _parse_key(parser, "parent")
        p = parser.parse_attribute()
        parser.parse_punctuation(">")
        return (IntAttr(d), p)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<dim = {self.dim.data}, parent = ")
        printer.print_attribute(self.parent)
        printer.print_string(">")

    def verify(self) -> None:
        r = self.parent.rank()
        if r is not None and not 0 <= self.dim.data < r:
            raise VerifyException(f"#layout.slice: dim {self.dim.data} out of range for a rank-{r} parent")


@irdl_attr_definition
class PermuteLayout(Layout):
    """The transposition of `parent`: dimension i of the tile is dimension order[i] of a tile
    in `parent` (what `tile.trans` by `order` of a register tile gives).

    Example:

        tensor<64x128xf32, #layout.permute<order = [1, 0], parent = #layout.wgmma<warp_groups = 1>>>
    """

    name = "layout.permute"
    order: ArrayAttr[IntAttr] = param_def(ArrayAttr[IntAttr])
    parent: Layout = param_def(Layout)

    def __init__(self, order: Sequence[int], parent: Layout):
        super().__init__(ArrayAttr([IntAttr(x) for x in order]), parent)

    def perm(self) -> list[int]:
        return [x.data for x in self.order.data]

    def rank(self) -> int | None:
        return len(self.order.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        _parse_key(parser, "order")
        order = _parse_order(parser)
        parser.parse_punctuation(",")
        _parse_key(parser, "parent")
        p = parser.parse_attribute()
        parser.parse_punctuation(">")
        return (order, p)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<order = {_order_str(self.order)}, parent = ")
        printer.print_attribute(self.parent)
        printer.print_string(">")

    def verify(self) -> None:
        _check_order(self.order, "#layout.permute")
        r = self.parent.rank()
        if r is not None and r != len(self.order.data):
            raise VerifyException(f"#layout.permute: order of rank {len(self.order.data)} over a rank-{r} parent")


def _parse_parent_only(parser: AttrParser) -> Attribute:
    """`<parent = L>`: the parameters of a layout made from one other."""
    parser.parse_punctuation("<")
    _parse_key(parser, "parent")
    p = parser.parse_attribute()
    parser.parse_punctuation(">")
    return p


def _print_parent_only(printer: Printer, parent: Attribute) -> None:
    printer.print_string("<parent = ")
    printer.print_attribute(parent)
    printer.print_string(">")


@irdl_attr_definition
class PairLayout(Layout):
    """`parent` with a minor dimension of size 2 added that lies within one thread: element
    [i..., k] sits in register 2 s + k of each thread that holds element [i...] of `parent`
    in its register s (what `tile.join` of two tiles in `parent` gives, and what
    `tile.split` takes apart: a pairing of registers, no data moves between threads).

    Example:

        tensor<128x64x2xf32, #layout.pair<parent = #layout.wgmma<warp_groups = 2>>>
    """

    name = "layout.pair"
    parent: Layout = param_def(Layout)

    def __init__(self, parent: Layout):
        super().__init__(parent)

    def rank(self) -> int | None:
        r = self.parent.rank()
        return None if r is None else r + 1

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (_parse_parent_only(parser),)

    def print_parameters(self, printer: Printer) -> None:
        _print_parent_only(printer, self.parent)

    def verify(self) -> None:
        if isinstance(self.parent, SharedLayout):
            raise VerifyException("#layout.pair: the parent must be a register layout, not #layout.shared")


@irdl_attr_definition
class OperandALayout(Layout):
    """wgmma's register-A fragment for 8-bit elements (e4m3 / e5m2) over the warp groups of
    `parent` (a `#layout.wgmma`): per k-block of 32 columns a thread holds four 32-bit
    registers of four bytes, rows base and base + 8 (base as in the accumulator), columns
    4 (l % 4) + 0..3 and 16 + 4 (l % 4) + 0..3. For 16-bit elements the accumulator
    fragment is the A fragment already; for 8-bit ones the columns differ (the accumulator
    holds 2 (l % 4) + 8 j + 0..1), so an fp8 P reaches P·V through a conversion
    (`nvgpu.convert_layout`: byte permutes and shuffles in the quad of lanes that share a row).
    With `interleave = 8` the k positions hold the columns in `interleaved` order (position
    4c + 2 i1 + i0 of each 16: column 8 i1 + 2c + i0), which are lane c's own accumulator
    bytes: no shuffles, one permute per register; the B it multiplies must be stored in the
    same order (#layout.shared<..., interleave = 8>), so the product is unchanged.

    Example:

        tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>>>
    """

    name = "layout.operand_a"
    parent: Layout = param_def(Layout)
    interleave: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, parent: Layout, interleave: int = 0):
        super().__init__(parent, IntAttr(interleave))

    def rank(self) -> int | None:
        return 2

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        _parse_key(parser, "parent")
        p = parser.parse_attribute()
        il = _parse_interleave(parser)
        parser.parse_punctuation(">")
        return (p, il)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<parent = ")
        printer.print_attribute(self.parent)
        printer.print_string(f"{_interleave_str(self.interleave)}>")

    def verify(self) -> None:
        if not isinstance(self.parent, WgmmaLayout):
            raise VerifyException("#layout.operand_a: the parent must be a #layout.wgmma accumulator fragment")
        if _bad_interleave(self.interleave):
            raise VerifyException(f"#layout.operand_a: interleave must be 0 or 8, got {self.interleave.data}")


@irdl_attr_definition
class BlockedLayout(Layout):
    """Each thread holds 4 x 4 blocks of a 2-D tile: lane l of warp w holds the block at
    rows 4 (wr tr + l / tc), columns 4 (wc tc + l % tc) (tr x tc = `lanes`, wr = w / wc,
    wc = w % wc over `warps`), and the same block every 4 tr x (warps rows) rows and 4 tc x
    (warps columns) columns after (register 16 b + 4 i + j: element (i, j) of the thread's
    b-th block, blocks row by row). Four elements along either dimension are contiguous in
    one thread, so a copy between two shared-memory layouts reads and writes 32 bits at a
    time whichever dimension each stores contiguously (ws-stage-operands' transposing copy
    of an fp8 V).

    Example:

        tensor<128x128xf8E4M3FN, #layout.blocked<lanes = [8, 4], warps = [4, 2]>>
    """

    name = "layout.blocked"
    lanes: ArrayAttr[IntAttr] = param_def(ArrayAttr[IntAttr])
    warps: ArrayAttr[IntAttr] = param_def(ArrayAttr[IntAttr])

    def __init__(self, lanes: Sequence[int], warps: Sequence[int]):
        super().__init__(ArrayAttr([IntAttr(x) for x in lanes]), ArrayAttr([IntAttr(x) for x in warps]))

    def lane_dims(self) -> list[int]:
        return [x.data for x in self.lanes.data]

    def warp_dims(self) -> list[int]:
        return [x.data for x in self.warps.data]

    def rank(self) -> int | None:
        return 2

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        _parse_key(parser, "lanes")
        lanes = _parse_order(parser)
        parser.parse_punctuation(",")
        _parse_key(parser, "warps")
        warps = _parse_order(parser)
        parser.parse_punctuation(">")
        return (lanes, warps)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<lanes = {_order_str(self.lanes)}, warps = {_order_str(self.warps)}>")

    def verify(self) -> None:
        lanes, warps = self.lane_dims(), self.warp_dims()
        if len(lanes) != 2 or len(warps) != 2 or lanes[0] * lanes[1] != 32:
            raise VerifyException(f"#layout.blocked: lanes must be two numbers whose product is 32, got {lanes}")
        if any(x < 1 for x in warps) or any(x & (x - 1) for x in lanes + warps):
            raise VerifyException(f"#layout.blocked: lanes and warps must be powers of two, got {lanes}, {warps}")


@irdl_attr_definition
class TransposeCopyLayout(Layout):
    """An 8-bit 2-D tile read from shared memory that stores dim 0 contiguously, only to be
    stored where dim 1 is contiguous (ws-producer-transpose's V^T: V as TMA wrote it, into
    V^T's slot), held the way `ldmatrix.trans` (16-bit 8x8 matrices) and two byte permutes
    leave it and `stmatrix` stores it: per unit of 32 x 16 elements a warp moves with one
    ldmatrix.x4 and one stmatrix.x4, a lane holds four 32-bit words, each four elements
    along dim 1. The warps [wr, wc] split the units; the element each register holds is
    `wsdialects.lower.llvm.transpose_copy.element`. `interleave = 8`: stored into a slot in
    `interleaved` order along dim 1 (#layout.shared<..., interleave = 8>).

    Example:

        tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 4]>>
    """

    name = "layout.transpose_copy"
    warps: ArrayAttr[IntAttr] = param_def(ArrayAttr[IntAttr])
    interleave: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, warps: Sequence[int], interleave: int = 0):
        super().__init__(ArrayAttr([IntAttr(x) for x in warps]), IntAttr(interleave))

    def warp_dims(self) -> list[int]:
        return [x.data for x in self.warps.data]

    def rank(self) -> int | None:
        return 2

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        _parse_key(parser, "warps")
        warps = _parse_order(parser)
        il = _parse_interleave(parser)
        parser.parse_punctuation(">")
        return (warps, il)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<warps = {_order_str(self.warps)}{_interleave_str(self.interleave)}>")

    def verify(self) -> None:
        w = self.warp_dims()
        if len(w) != 2 or any(x < 1 or x & (x - 1) for x in w):
            raise VerifyException(f"#layout.transpose_copy: warps must be two powers of two, got {w}")
        if _bad_interleave(self.interleave):
            raise VerifyException(f"#layout.transpose_copy: interleave must be 0 or 8, got {self.interleave.data}")


@irdl_attr_definition
class SharedLayout(Layout):
    """A tile in shared memory, rows of `swizzle` bytes XOR-swizzled in 16-byte chunks the way
    TMA writes and wgmma reads them (128, 64 or 32; 0: not swizzled, e.g. a tile staged for
    a TMA store); `order` lists the dimensions from the contiguous one outwards ([1, 0]:
    row-major). Rows longer than the swizzle are split into column blocks of `swizzle`
    bytes, stored one after the other. `interleave = 8`: along the contiguous dim each 16
    elements are stored in `interleaved` order (FlashAttention-3's fp8 V^T, keys reordered
    so that P's accumulator bytes are its A operand as they lie); only wgmma reads such a
    tile, as the B of a dot whose A (#layout.operand_a<..., interleave = 8>) has that order.

    Example:

        tensor<128x64xf16, #layout.shared<swizzle = 128, order = [1, 0]>>
    """

    name = "layout.shared"
    swizzle: IntAttr = param_def(converter=IntAttr.get)
    order: ArrayAttr[IntAttr] = param_def(ArrayAttr[IntAttr])
    interleave: IntAttr = param_def(converter=IntAttr.get)

    def __init__(self, swizzle: int, order: Sequence[int] = (1, 0), interleave: int = 0):
        super().__init__(IntAttr(swizzle), ArrayAttr([IntAttr(x) for x in order]), IntAttr(interleave))

    def perm(self) -> list[int]:
        return [x.data for x in self.order.data]

    @property
    def contiguous_dim(self) -> int:
        return self.perm()[0]

    def rank(self) -> int | None:
        return len(self.order.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        _parse_key(parser, "swizzle")
        s = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(",")
        _parse_key(parser, "order")
        order = _parse_order(parser)
        il = _parse_interleave(parser)
        parser.parse_punctuation(">")
        return (IntAttr(s), order, il)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<swizzle = {self.swizzle.data}, order = {_order_str(self.order)}"
                             f"{_interleave_str(self.interleave)}>")

    def verify(self) -> None:
        if self.swizzle.data not in SWIZZLES:
            raise VerifyException(f"#layout.shared: swizzle must be 0, 32, 64 or 128 bytes, got {self.swizzle.data}")
        _check_order(self.order, "#layout.shared")
        if _bad_interleave(self.interleave):
            raise VerifyException(f"#layout.shared: interleave must be 0 or 8, got {self.interleave.data}")


def slot_swizzle(row_bytes: int) -> int | None:
    """The swizzle (bytes) of a TMA-written slot tile with rows of `row_bytes`: the row
    itself for 32, 64 and 128 bytes; 128 for rows that are a multiple of 128 bytes, which
    are stored as `row_bytes / 128` column blocks (`column_blocks`); None: no swizzle fits."""
    if row_bytes in (32, 64, 128):
        return row_bytes
    return 128 if row_bytes % 128 == 0 else None


def column_blocks(row_bytes: int, swizzle: int) -> int:
    """How many column blocks of `swizzle` bytes a swizzled row of `row_bytes` is split
    into. Block b of an R-row tile holds bytes [b * swizzle, (b + 1) * swizzle) of every
    row, R rows of `swizzle` bytes, and starts R * swizzle bytes after block b - 1: one
    TMA box per block, and wgmma descriptors that step from block to block (a head
    dimension of 128 in f16 is two 128 x 64 blocks)."""
    return row_bytes // swizzle if swizzle and row_bytes > swizzle else 1


def layout_of(t: Attribute) -> Layout | None:
    """The layout of a tile type (None for a scalar or a tile without one)."""
    if isinstance(t, TensorType) and isinstance(t.encoding, Layout):
        return t.encoding
    return None


@functools.lru_cache(maxsize=4096)  # types are values: the same one for the same inputs
def with_layout(t: TensorType, layout: Attribute | None) -> TensorType:
    """`t` with its encoding replaced (None: removed)."""
    from xdsl.dialects.builtin import NoneAttr

    return TensorType(t.element_type, t.get_shape(), layout if layout is not None else NoneAttr())


def plain(t: Attribute) -> Attribute:
    """`t` without a layout: what tile-level verifiers compare (a layout never changes a
    tile's shape, element type or values)."""
    if layout_of(t) is not None:
        return with_layout(t, None)
    return t


LayoutDialect = Dialect("layout", [], [WgmmaLayout, SliceLayout, PermuteLayout, PairLayout, OperandALayout,
                                       BlockedLayout, TransposeCopyLayout, SharedLayout])


def blocked_for(rows: int, cols: int, warps: int) -> BlockedLayout | None:
    """A #layout.blocked over `warps` warps for a rows x cols tile: 8 x 4 lanes (a warp's row
    of 32 bytes in each of 8 rows, 2-way bank conflicts at most for either dimension
    contiguous), the warps along the rows first; None where the tile does not divide."""
    tr, tc = 8, 4
    for wr in sorted({w for w in (1, 2, 4, 8, 16) if warps % w == 0}, reverse=True):
        wc = warps // wr
        if rows % (4 * tr * wr) == 0 and cols % (4 * tc * wc) == 0:
            return BlockedLayout((tr, tc), (wr, wc))
    return None


# which registers hold which elements (wsdialects/fragments.py) and where an element of a
# shared-memory tile lives (wsdialects/swizzle.py), under their old names
from wsdialects.fragments import (acc_fragment_base, acc_fragment_offsets, blocked_base, blocked_offsets,  # noqa: E402,F401
                                  col_slice_offsets, operand_a8_offsets, row_slice_offsets)
from wsdialects.swizzle import (SWIZZLE_CHUNK_SHIFT, SWIZZLE_LINE_SHIFT, smem_offset, swizzle_bytes,  # noqa: E402,F401
                                swizzle_mask, swizzled)
