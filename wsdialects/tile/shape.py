"""`tile` ops that reshape a tile without computing: `tile.splat`, `tile.broadcast`,
`tile.expand_dims`, `tile.trans`."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from wsdialects.tile.common import _UnaryTileOp, _i32, _int_prop
from wsdialects.tile.types import check_tile, element_type, shape_of

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
