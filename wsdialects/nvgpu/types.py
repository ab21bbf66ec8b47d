"""The `nvgpu` dialect's type (`!nvgpu.mbarriers`) and the machine limits its ops check
(shared-memory space, register file, setmaxnreg bounds)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

SMEM_SPACE = 3  # memref memory space of CTA shared memory
REGFILE = 65536  # 32-bit registers per SM (and per CTA at one CTA per SM)
REG_MIN, REG_MAX = 24, 256  # setmaxnreg bounds (multiples of 8)
SMEM_PER_SM = 233472  # bytes of shared memory per SM on sm_90 (228 KB)
SMEM_RESERVED = 1024  # bytes of it the driver keeps per resident CTA
SM_THREADS = 2048  # resident threads per SM
SM_CTAS = 32  # resident CTAs per SM


def regfile_per_cta(ctas_per_sm: int = 1) -> int:
    """32-bit registers one CTA may hold when `ctas_per_sm` CTAs share an SM (the pool its
    warp groups' setmaxnreg budgets come from)."""
    return REGFILE // max(ctas_per_sm, 1)


def entry_regs(threads: int, ctas_per_sm: int = 1) -> int:
    """Registers per thread at launch for a CTA of `threads` threads: its share of the file,
    rounded down to 8, below 256 (the cap `.maxntid` and `.minnctapersm` give ptxas)."""
    return min(255, regfile_per_cta(ctas_per_sm) // max(threads, 1)) // 8 * 8


def register_pool(threads: int, ctas_per_sm: int = 1) -> int:
    """The registers a CTA of `threads` threads holds from launch to exit: `entry_regs` each.
    setmaxnreg only moves registers between the CTA's warp groups (a `.dec` returns them to the
    CTA's pool, a `.inc` blocks until the pool has enough), so the warp groups' budgets must
    sum to at most this: 64512 for 384 threads (24 + 2 x 240 per warp-group thread, as
    FlashAttention-3), not the 65536 of the file."""
    return entry_regs(threads, ctas_per_sm) * threads


def smem_per_cta(ctas_per_sm: int = 1) -> int:
    """Bytes of dynamic shared memory one CTA may opt into when `ctas_per_sm` CTAs share an SM
    (232448 at one)."""
    return SMEM_PER_SM // max(ctas_per_sm, 1) - SMEM_RESERVED


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
