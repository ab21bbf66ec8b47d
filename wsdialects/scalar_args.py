"""What a kernel's scalar parameter (`%N: i32`, `%scale: f32`, `%flag: i1`) takes from Python,
one rule for the interpreter (`wsdialects.interpret`) and the GPU launcher (`k[grid](...)`).

The parameter's type is declared in the kernel, so a value of another kind is a mistake to
report, never to convert: a float passed for `i32` (`K / 2` instead of `K // 2`) is refused
rather than truncated, as a bool is for an integer or float parameter. Triton, which types an
argument by its Python value, would make the float an `fp32` argument and the bool an `i1` one:
a different kernel, not the same one with the value converted.

    integer (i8 ... i64, index)   int, numpy integer scalar (np.int32(3))
    i1                            bool, numpy bool, 0 or 1
    float (f16, bf16, f32, f64)   int or float, numpy integer or float scalar

Whether the value fits the type is each caller's check (the interpreter's and the launcher's
types differ); only its kind is decided here.
"""

from __future__ import annotations

import numpy as np


def _kind(x) -> str:
    """`x`'s kind for a message: 'a float (2.5)', 'a numpy float32 (2.5)', 'a bool (True)', 'a str'."""
    name = type(x).__name__
    if isinstance(x, (bool, int, float, np.generic)):
        what = f"a numpy {name}" if isinstance(x, np.generic) else f"a {name}"
        return f"{what} ({x})"
    return f"a {name}"


def scalar_problem(type_name: str, x) -> str | None:
    """Why `x` cannot be passed for a scalar parameter of type `type_name` (MLIR's spelling:
    i32, index, f32, ...), or None when it can."""
    integer = type_name == "index" or (type_name[:1] == "i" and type_name[1:].isdigit())
    boolean = isinstance(x, (bool, np.bool_))
    if type_name == "i1":
        if boolean or (isinstance(x, (int, np.integer)) and x in (0, 1)):
            return None
        return f"expected a bool for i1, got {_kind(x)}"
    if boolean:
        want = "an int" if integer else "a number"
        return f"expected {want} for {type_name}, got {_kind(x)}: a bool is an i1 argument (in Triton too)"
    if integer:
        if isinstance(x, (int, np.integer)):
            return None
        if isinstance(x, (float, np.floating)):
            return (f"expected an int for {type_name}, got {_kind(x)}: a float is not truncated to an integer "
                    f"argument (Triton would make it an fp32 argument); pass int(...) if that is what you mean")
        return f"expected an int for {type_name}, got {_kind(x)}"
    if isinstance(x, (int, float, np.integer, np.floating)):
        return None
    return f"expected a number for {type_name}, got {_kind(x)}"
