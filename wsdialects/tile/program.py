"""`tile` ops that index the program: `tile.program_id`, `tile.num_programs`,
`tile.make_range`."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i32
from xdsl.irdl import irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile.common import _i32, _int_prop
from wsdialects.tile.types import shape_of


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
