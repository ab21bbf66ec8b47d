"""`nvgpu` wgmma ops: the fence, the asynchronous warp-group MMA, commit and wait groups, and
the conversion of a register tile into wgmma's register-A fragment."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from wsdialects.layout import plain
from wsdialects.mma import WaitOp as _MmaWait
from wsdialects.nvgpu.common import _NoOperands
from wsdialects.syntax import BodyThenAttrs
from wsdialects.tile import DotOp


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


@irdl_op_definition
class ConvertLayoutOp(IRDLOperation):
    """Every thread of the branch exchanges elements of a register tile with the others so
    that it ends in the result's layout; the tile itself is unchanged. `ws-lower-layouts`
    inserts it where a dot reads an 8-bit A from registers (an fp8 P in P·V): the
    accumulator fragment it was computed in is not wgmma's 8-bit A fragment, and the
    emitter converts with byte permutes and two shuffles per 32-bit register among the four
    lanes that share a row.

    Example:

        %a = nvgpu.convert_layout %p : tensor<128x128xf8E4M3FN, #layout.wgmma<warp_groups = 2>> -> tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>>>
    """

    name = "nvgpu.convert_layout"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        if plain(self.src.type) != plain(self.result.type):
            raise VerifyException(f"nvgpu.convert_layout keeps the tile: {self.src.type} -> {self.result.type}")
