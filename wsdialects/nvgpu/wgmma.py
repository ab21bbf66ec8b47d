"""`nvgpu` wgmma ops: the fence, the asynchronous warp-group MMA, commit and wait groups."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import SSAValue
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
