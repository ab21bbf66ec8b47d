"""The descriptor arguments of ws-tma-load's launch contract (`ws.tma_loads`) in the interpreter,
built as the GPU runtime builds them (wsdialects/runtime/launch.py)."""

from __future__ import annotations

import numpy as np

from wsdialects.interpreter.values import dtype_of


def tma_load_arguments(attr, args, params) -> dict[int, np.ndarray]:
    """By argument index: the view of the pointer argument that the recorded bounds and stride
    give, where TMA can take it (`tma_common.view_problem`), else an aligned copy of it with rows
    padded to 16 bytes (the kernel only reads it, so the copy reads the same)."""
    from wsdialects.transforms.tma_common import load_contract, load_view, padded_cols, view_problem

    out = {}
    for e in load_contract(attr):
        arr = args[e["ptr"]]
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            out[e["desc"]] = np.zeros((0, 0), dtype_of(params[e["desc"]].type.block))  # the pointer's check says why
            continue
        flat = arr.reshape(-1)
        rows, cols, s = load_view(e, args, flat.size)
        it = flat.itemsize
        if rows < 1 or cols < 1:
            out[e["desc"]] = np.zeros((max(rows, 0), max(cols, 0)), flat.dtype)
            continue
        if s < cols or (rows - 1) * s + cols > flat.size:
            raise TypeError(f"argument {e['ptr']}: the kernel reads a {rows} x {cols} view with a row stride of "
                            f"{s} elements, which the array of {flat.size} elements does not hold")
        view = np.lib.stride_tricks.as_strided(flat, (rows, cols), (s * it, it))
        if view_problem(rows, cols, s, it, flat.ctypes.data, flat.size, whole_rows=False) is not None:
            copy = np.zeros((rows, padded_cols(cols, it)), flat.dtype)
            copy[:, :cols] = view
            view = copy[:, :cols]
        out[e["desc"]] = view
    return out
