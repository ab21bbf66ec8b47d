"""The `tile` dialect: the compiler's input language, close to Triton's TTIR.

One program instance (a CTA) computes on whole tiles (`tensor<...>` values); the
compiler decides threads, layouts, shared memory and synchronization. A kernel is
a `func.func` carrying the unit attribute `tile.kernel`:

    func.func @k(%d: !tile.desc<tensor<128x64xf16>>, %n: i32)
        attributes {tile.kernel, tile.num_warps = 4 : i32} {
      %pid = tile.program_id 0 : i32
      %a = tile.desc_load %d[%pid, %n] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
      ...
    }

`tile.num_warps` is how many warps run the tile code: whole warp groups, a
multiple of 4 from 4 to 28 (default 4; ws-distribute adds a producer warp group to
a CTA of at most 32 warps); once warp-specialized it counts every warp, at most 32.
`wsdialects/attributes.py` verifies it (and `tile.kernel`) on every func.
Elementwise math is `arith` and `math` on tensors, control flow `scf.for` /
`scf.if`. The reference of every op is docs/dialects/tile.md (generated from these
definitions); docs/writing-a-kernel.md shows how to write a kernel.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from wsdialects.tile.atomic import AtomicAddOp
from wsdialects.tile.common import READS, WRITES
from wsdialects.tile.descriptor import MakeDescOp
from wsdialects.tile.descriptor_array import DescArrayType, DescIndexOp
from wsdialects.tile.compute import REDUCE_KINDS, DotOp, ReduceOp
from wsdialects.tile.memory import DESC_REDUCE_KINDS, AddPtrOp, DescLoadOp, DescStoreOp, LoadOp, StoreOp
from wsdialects.tile.program import MakeRangeOp, NumProgramsOp, ProgramIdOp
from wsdialects.tile.regroup import JoinOp, ReshapeOp, SplitOp
from wsdialects.tile.shape import BroadcastOp, ExpandDimsOp, SplatOp, TransOp
from wsdialects.tile.types import (
    DOT_INPUT_TYPES,
    FLOAT_TYPES,
    INT_WIDTHS,
    DescType,
    PtrType,
    check_tile,
    element_type,
    is_element_type,
    is_scalar_type,
    shape_of,
)

Tile = Dialect(
    "tile",
    [
        ProgramIdOp,
        NumProgramsOp,
        MakeRangeOp,
        SplatOp,
        BroadcastOp,
        ExpandDimsOp,
        TransOp,
        AddPtrOp,
        LoadOp,
        StoreOp,
        DescLoadOp,
        DescStoreOp,
        DotOp,
        ReduceOp,
        ReshapeOp,
        JoinOp,
        SplitOp,
        MakeDescOp,
        DescIndexOp,
        AtomicAddOp,
    ],
    [PtrType, DescType, DescArrayType],
)

KERNEL_ATTR = "tile.kernel"
NUM_WARPS_ATTR = "tile.num_warps"

__all__ = [
    "Tile", "KERNEL_ATTR", "NUM_WARPS_ATTR",
    "PtrType", "DescType", "DescArrayType",
    "ProgramIdOp", "NumProgramsOp", "MakeRangeOp",
    "SplatOp", "BroadcastOp", "ExpandDimsOp", "TransOp",
    "AddPtrOp", "LoadOp", "StoreOp", "DescLoadOp", "DescStoreOp", "DESC_REDUCE_KINDS",
    "DotOp", "ReduceOp", "ReshapeOp", "JoinOp", "SplitOp", "MakeDescOp", "DescIndexOp", "AtomicAddOp",
    "FLOAT_TYPES", "DOT_INPUT_TYPES", "INT_WIDTHS", "REDUCE_KINDS", "READS", "WRITES",
    "is_element_type", "is_scalar_type", "element_type", "shape_of", "check_tile",
]
