"""`nvgpu` mbarrier ops (create, init, arrive, arrive_expect_tx, try_wait.parity) and
the fences that order barrier initialization and async-proxy accesses."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from wsdialects.nvgpu.common import _NoOperands, _check_i32, _i32, _parse_bar, _parse_bar_type, _print_bar
from wsdialects.nvgpu.types import MBarriersType
from wsdialects.syntax import BodyThenAttrs


# ----------------------------------------------------------------------------- mbarrier

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


ARRIVE_SCOPES = ("per_warp", "per_thread", "once")


def arrivals(scope: str, warps: int) -> int:
    """Arrivals one `nvgpu.mbarrier.arrive` of `scope` makes when `warps` warps execute it."""
    return {"per_warp": warps, "per_thread": 32 * warps, "once": 1}[scope]


@irdl_op_definition
class MBarrierArriveOp(BodyThenAttrs):
    """Arrives on barrier `i`: `per_warp` = lane 0 of every executing warp arrives (as many
    arrivals as warps), `per_thread` = every executing thread arrives (each thread releases
    its own shared-memory reads), `once` = one elected thread arrives.

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
