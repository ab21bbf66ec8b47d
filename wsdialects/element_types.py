"""The numpy dtypes that hold values of MLIR element types: fp8 and bf16 through ml_dtypes.

Shared by the parser (a hexadecimal float literal, `dense<0xFF800000> : tensor<4xf32>`, is
the bit pattern of a value of its element type) and the interpreter (tiles are numpy arrays
of their element type); it imports only xDSL, numpy and ml_dtypes.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
)

# Float element types and the numpy dtypes (ml_dtypes for bf16 and fp8) holding them.
FLOAT_DTYPES: dict[type, np.dtype] = {
    Float16Type: np.dtype(np.float16),
    BFloat16Type: np.dtype(ml_dtypes.bfloat16),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
    Float8E4M3FNType: np.dtype(ml_dtypes.float8_e4m3fn),
    Float8E5M2Type: np.dtype(ml_dtypes.float8_e5m2),
}
# Integer widths and the numpy dtypes holding them (i1 as bool).
INT_DTYPES = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
              32: np.dtype(np.int32), 64: np.dtype(np.int64)}
