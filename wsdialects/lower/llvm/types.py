"""Types, constants and value records of the LLVM emitter: LLVM type names of element
types, sizes, float constants in LLVM's hex form, and what the emitter knows of a value
(`Smem`: a tile in shared memory; `Frag`: registers of a laid-out tile) and of a kernel
(`ParamInfo`, `KernelInfo`, the runtime's launch contract). Imports nothing of the emitter."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from wsdialects.tile import PtrType

try:  # fp8 types (xDSL 0.74 names)
    from xdsl.dialects.builtin import Float8E4M3FNType, Float8E5M2Type
except ImportError:  # pragma: no cover
    Float8E4M3FNType = Float8E5M2Type = ()

TRIPLE = "nvptx64-nvidia-cuda"
DATALAYOUT = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
REGFILE = 65536


def is_fp8(t: Attribute) -> bool:
    return bool(Float8E4M3FNType) and isinstance(t, (Float8E4M3FNType, Float8E5M2Type))


def fp8_name(t: Attribute) -> str:
    return "e4m3" if isinstance(t, Float8E4M3FNType) else "e5m2"


def llty(t: Attribute) -> str:
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, Float16Type):
        return "half"
    if isinstance(t, BFloat16Type):
        return "bfloat"
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if is_fp8(t):
        return "i8"
    if isinstance(t, PtrType):
        return "ptr addrspace(1)"
    raise TypeError(f"no LLVM type for {t}")


def bits_of(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, (Float16Type, BFloat16Type)):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    if is_fp8(t):
        return 8
    if isinstance(t, PtrType):
        return 64
    raise TypeError(f"no bit width for {t}")


def nbytes(t: Attribute) -> int:
    return max(1, bits_of(t) // 8)


def is_float(t: Attribute) -> bool:
    return isinstance(t, (Float16Type, BFloat16Type, Float32Type, Float64Type))


def shape_of(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


@lru_cache(maxsize=64)
def dense_distinct(val: DenseIntOrFPElementsAttr) -> tuple:
    """The distinct element values of a dense constant, in first-seen order (unpacked once:
    a 128x256 accumulator constant is read once per fragment element)."""
    return tuple(dict.fromkeys(val.get_values()))


def elem_of(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def prod(xs) -> int:
    r = 1
    for x in xs:
        r *= x
    return r


def round_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


SWIZZLE_CODE = {128: 1, 64: 2, 32: 3}


# ----------------------------------------------------------------------------- results

@dataclass
class ParamInfo:
    """How the runtime must pass one kernel argument."""
    name: str
    kind: str  # "desc" | "descs" (an array of descriptors, one per group) | "ptr" | "scalar"
    dtype: str  # element type name as in MLIR (f16, bf16, f32, i32, f8E4M3FN, ...)
    block: tuple[int, ...] = ()
    swizzle: int = 0  # bytes (128/64/32), 0 = none
    stored: bool = False  # a desc the kernel stores through (TMA stores write whole 16-byte chunks)


@dataclass
class KernelInfo:
    name: str
    params: list[ParamInfo]
    num_threads: int
    smem_bytes: int
    partitions: list[tuple[str, int, int | None]] = field(default_factory=list)
    persistent_programs: int = 0  # ws-persistent: launch min(N, tiles) programs, pass the grid last
    ctas_per_sm: int = 1  # ws-occupancy: CTAs that share an SM (the launch prefers shared memory to L1)
    tma_stores: list[dict] = field(default_factory=list)  # ws-tma-store: {ptr, rows, cols, stride, desc} indices
    tma_loads: list[dict] = field(default_factory=list)  # ws-tma-load: tma_common.load_contract per view
    host_descs: list[dict] = field(default_factory=list)  # ws-host-descriptors: tma_common.host_desc_contract


@dataclass
class Lowered:
    llvm_ir: str
    kernels: list[KernelInfo]


@dataclass
class Smem:
    """A tile resident in swizzled shared memory (an aref slot's payload). Rows wider than
    the swizzle are column blocks of `swizzle` bytes, `block_bytes` apart (0: one block)."""
    addr: str  # i32 shared address
    shape: tuple[int, ...]
    elem: Attribute
    swizzle: int
    trans: bool = False
    block_bytes: int = 0
    align: int = 0  # a known alignment of `addr` in bytes (a slot or staging buffer: 1024), 0: none

    @property
    def row_stride(self) -> int:
        """Bytes from one stored row to the next (inside a column block)."""
        rows_len = self.shape[0] if self.trans else self.shape[-1]
        return self.swizzle if self.block_bytes else rows_len * nbytes(self.elem)


@dataclass
class Frag:
    """A tile held in registers, one per slot of its layout (`_Kernel.slots`); a row or
    column slice of the accumulator is also found by element index (`index`)."""
    regs: list[str]
    index: dict | None = None


@dataclass
class BranchCoords:
    """Per-thread fragment coordinates of the partition running the code."""
    wg_count: int
    row_rt: str  # i32: wg*64 + 16*warp + lane/4
    col_rt: str  # i32: 2*(lane%4)
    tid_in_part: str
    lane: str
    threads: int
    barrier_id: int
    col4_rt: str = "0"  # i32: 4*(lane%4), the column base of the 8-bit A fragment (#layout.operand_a)


# ----------------------------------------------------------------------------- constants

def suffix(T: str) -> str:
    return {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}.get(T, T)


def fconst(x: float, t: Attribute) -> str:
    import struct
    if isinstance(t, (Float32Type, Float16Type, Float64Type)):
        # LLVM wants double-precision hex for half/float constants that are exactly representable
        if isinstance(t, Float32Type):
            x = struct.unpack("f", struct.pack("f", x))[0]
        elif isinstance(t, Float16Type):
            import numpy as np
            x = float(np.float16(x))
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", x))[0]
    if isinstance(t, BFloat16Type):
        b = struct.unpack("<I", struct.pack("<f", x))[0] >> 16
        return "0xR%04X" % b
    raise TypeError(t)


def splat_int(v: SSAValue) -> int | None:
    """The integer of a splat constant tensor (arith.constant dense / tile.splat of a constant)."""
    o = v.owner
    if not isinstance(o, Operation):
        return None
    if o.name == "tile.splat":
        return splat_int(o.operands[0])
    if o.name == "arith.constant":
        val = o.value
        if isinstance(val, IntegerAttr):
            return val.value.data
        if isinstance(val, DenseIntOrFPElementsAttr):
            xs = dense_distinct(val)
            if len(xs) == 1:
                x = xs[0]
                return int(x) if isinstance(x, int) else None
    return None


def zero(t: Attribute) -> str:
    if is_float(t):
        return fconst(0.0, t)
    return "0"
