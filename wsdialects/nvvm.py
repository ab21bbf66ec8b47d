"""The `nvvm` dialect: per-thread PTX facilities the lowering needs beside `nvgpu`
(special registers, warp shuffles, CTA and named barriers, elect).

    %t = nvvm.read_sreg tid.x : i32
    %y = nvvm.shfl_sync bfly %x, 2 : f32
    nvvm.barrier 1 threads 256
    nvvm.barrier_arrive 4 threads 256
    %leader = nvvm.elect_sync : i1
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, IntegerAttr, IntegerType, StringAttr, i1, i32
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from wsdialects.syntax import BodyThenAttrs

SREGS = ("tid.x", "tid.y", "tid.z", "ntid.x", "laneid", "warpid", "ctaid.x", "ctaid.y", "ctaid.z",
         "nctaid.x", "nctaid.y", "nctaid.z", "smid")
SHFL_MODES = ("bfly", "down", "up", "idx")
MAX_NAMED_BARRIER = 15


@irdl_op_definition
class ReadSRegOp(BodyThenAttrs):
    """Reads a PTX special register (tid.x, laneid, warpid, ctaid.x, nctaid.x, smid, ...) as
    i32 (llvm.nvvm.read.ptx.sreg.*).

    Example:

        %t = nvvm.read_sreg tid.x : i32
    """

    name = "nvvm.read_sreg"
    reg = prop_def(StringAttr)
    result = result_def(IntegerType)

    def __init__(self, reg: str):
        super().__init__(properties={"reg": StringAttr(reg)}, result_types=[i32])

    def verify_(self) -> None:
        if self.reg.data not in SREGS:
            raise VerifyException(f"unknown special register '{self.reg.data}' (known: {', '.join(SREGS)})")
        if self.result.type != i32:
            raise VerifyException(f"special registers are i32, got {self.result.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        pos = parser.pos
        name = parser.parse_optional_identifier()
        if name is None:
            parser.raise_error("expected a special register name such as tid.x", pos, parser.pos)
        op = cls(name)
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if t != i32:
            parser.raise_error(f"special registers are i32, got {t}", pos, parser.pos)
        return op

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {self.reg.data} : i32")


@irdl_op_definition
class ShflSyncOp(BodyThenAttrs):
    """Warp shuffle over all 32 lanes (shfl.sync.{bfly,down,up,idx}.b32 with a full mask) of
    an i32 or f32: `bfly 2` reads the value of lane (lane xor 2).

    Example:

        %y = nvvm.shfl_sync bfly %x, 2 : f32
    """

    name = "nvvm.shfl_sync"
    mode = prop_def(StringAttr)
    offset = prop_def(IntegerAttr)
    value = operand_def()
    result = result_def()

    def __init__(self, mode: str, value: SSAValue, offset: int):
        super().__init__(operands=[value], result_types=[value.type],
                         properties={"mode": StringAttr(mode), "offset": IntegerAttr(offset, 32)})

    def verify_(self) -> None:
        if self.mode.data not in SHFL_MODES:
            raise VerifyException(f"shuffle mode must be one of {', '.join(SHFL_MODES)}, got '{self.mode.data}'")
        if not 0 <= self.offset.value.data <= 31:
            raise VerifyException(f"shuffle lane offset must be in [0, 31], got {self.offset.value.data}")
        t = self.value.type
        if not (t == i32 or isinstance(t, Float32Type)):
            raise VerifyException(f"shfl.sync moves 32-bit values (i32, f32), got {t}")
        if self.result.type != t:
            raise VerifyException("nvvm.shfl_sync result type must equal the operand type")

    @classmethod
    def parse_body(cls, parser: Parser):
        pos = parser.pos
        mode = parser.parse_optional_identifier()
        if mode not in SHFL_MODES:
            parser.raise_error(f"expected a shuffle mode ({', '.join(SHFL_MODES)})", pos, parser.pos)
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        off = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls(mode, parser.resolve_operand(v, t), off)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data} ")
        printer.print_operand(self.value)
        printer.print_string(f", {self.offset.value.data} : ")
        printer.print_attribute(self.value.type)


@irdl_op_definition
class BarrierOp(BodyThenAttrs):
    """The CTA barrier `bar.sync 0` (all threads), or named barrier `id` (at most 15) among
    `threads` threads (`bar.sync id, threads`; a multiple of 32).

    Example:

        nvvm.barrier 1 threads 256
    """

    name = "nvvm.barrier"
    id = prop_def(IntegerAttr)
    threads = opt_prop_def(IntegerAttr)

    def __init__(self, bid: int = 0, threads: int | None = None):
        props = {"id": IntegerAttr(bid, 32)}
        if threads is not None:
            props["threads"] = IntegerAttr(threads, 32)
        super().__init__(properties=props)

    def verify_(self) -> None:
        b = self.id.value.data
        if not 0 <= b <= MAX_NAMED_BARRIER:
            raise VerifyException(f"barrier id must be in [0, {MAX_NAMED_BARRIER}], got {b}")
        if self.threads is not None:
            n = self.threads.value.data
            if n <= 0 or n % 32 or n > 1024:
                raise VerifyException(f"a named barrier counts whole warps (a multiple of 32, at most 1024), got {n}")

    @classmethod
    def parse_body(cls, parser: Parser):
        b = parser.parse_integer(allow_boolean=False)
        n = None
        if parser.parse_optional_keyword("threads") is not None:
            n = parser.parse_integer(allow_boolean=False)
        return cls(b, n)

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {self.id.value.data}")
        if self.threads is not None:
            printer.print_string(f" threads {self.threads.value.data}")


@irdl_op_definition
class BarrierArriveOp(BodyThenAttrs):
    """Arrives at named barrier `id` (1 to 15) of `threads` threads without waiting
    (`bar.arrive id, threads`): the signalling half of a producer / consumer named barrier
    whose other threads `nvvm.barrier` there.

    Example:

        nvvm.barrier_arrive 4 threads 256
    """

    name = "nvvm.barrier_arrive"
    id = prop_def(IntegerAttr)
    threads = prop_def(IntegerAttr)

    def __init__(self, bid: int, threads: int):
        super().__init__(properties={"id": IntegerAttr(bid, 32), "threads": IntegerAttr(threads, 32)})

    def verify_(self) -> None:
        b, n = self.id.value.data, self.threads.value.data
        if not 1 <= b <= MAX_NAMED_BARRIER:
            raise VerifyException(f"barrier id must be in [1, {MAX_NAMED_BARRIER}] (0 is the CTA's), got {b}")
        if n <= 0 or n % 32 or n > 1024:
            raise VerifyException(f"a named barrier counts whole warps (a multiple of 32, at most 1024), got {n}")

    @classmethod
    def parse_body(cls, parser: Parser):
        b = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("threads")
        return cls(b, parser.parse_integer(allow_boolean=False))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(f" {self.id.value.data} threads {self.threads.value.data}")


@irdl_op_definition
class ElectSyncOp(BodyThenAttrs):
    """True in exactly one lane of the warp (elect.sync with a full mask).

    Example:

        %leader = nvvm.elect_sync : i1
    """

    name = "nvvm.elect_sync"
    result = result_def(IntegerType)

    def __init__(self):
        super().__init__(result_types=[i1])

    def verify_(self) -> None:
        if self.result.type != i1:
            raise VerifyException(f"elect_sync gives an i1, got {self.result.type}")

    @classmethod
    def parse_body(cls, parser: Parser):
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if t != i1:
            parser.raise_error(f"elect_sync gives an i1, got {t}", pos, parser.pos)
        return cls()

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" : i1")


Nvvm = Dialect("nvvm", [ReadSRegOp, ShflSyncOp, BarrierOp, BarrierArriveOp, ElectSyncOp], [])
