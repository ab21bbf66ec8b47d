"""The descriptor arguments a launch builds in the interpreter, as the GPU runtime builds them
(wsdialects/runtime/launch.py): ws-tma-load's (`ws.tma_loads`), ws-host-descriptors'
(`ws.host_descs`) and, through `values.tma_store_arguments`, ws-tma-store's (`ws.tma_stores`)."""

from __future__ import annotations

import numpy as np

from wsdialects.interpreter.values import dtype_of


def built_arguments(kernel, args: list, params) -> tuple[list, int]:
    """(the arguments with the trailing ones the launch builds appended where `args` are the
    user's, how many trailing arguments the contracts add); ws-persistent's grid comes after."""
    from wsdialects.interpreter.values import tma_store_arguments
    from wsdialects.transforms.tma_common import HOST_DESCS_ATTR, built_argument_count

    stores, loads = kernel.attributes.get("ws.tma_stores"), kernel.attributes.get("ws.tma_loads")
    hosts = kernel.attributes.get(HOST_DESCS_ATTR)
    hidden = built_argument_count(len(stores.data) if stores is not None else 0,
                                  len(loads.data) if loads is not None else 0,
                                  len(hosts.data) if hosts is not None else 0)
    user = len(params) - hidden - (3 if "ws.persistent" in kernel.attributes else 0)
    if not hidden or len(args) != user:
        return list(args), hidden
    extra = host_desc_arguments(hosts, args, params) if hosts is not None else {}
    if loads is not None:
        extra.update(tma_load_arguments(loads, args, params))
    if stores is not None:
        built = tma_store_arguments(stores, args, params)
        for k, e in enumerate(stores.data):
            d = e.data["desc"].value.data
            extra[d], extra[d + 1] = built[2 * k], built[2 * k + 1]
    return [*args, *(extra[i] for i in range(user, user + hidden))], hidden


def _view(flat: np.ndarray, shape: list[int], strides: list[int], copy_ok: bool, where: str) -> np.ndarray:
    """The strided view of `flat` a descriptor covers, where TMA can take it
    (`tma_common.strided_view_problem`); else, if `copy_ok`, an aligned copy with rows padded
    to 16 bytes (the kernel only reads it, so the copy reads the same); else TypeError."""
    from wsdialects.transforms.tma_common import padded_cols, strided_view_problem

    it = flat.itemsize
    view = np.lib.stride_tricks.as_strided(flat, shape, [s * it for s in strides])
    why = strided_view_problem(shape, strides, it, flat.ctypes.data, flat.size, whole_rows=False)
    if why is not None:
        if not copy_ok:
            raise TypeError(f"{where}: the kernel writes through a TMA descriptor over it, and TMA cannot take "
                            f"the view: {why}")
        copy = np.zeros((*shape[:-1], padded_cols(shape[-1], it)), flat.dtype)
        copy[..., :shape[-1]] = view
        view = copy[..., :shape[-1]]
    return view


def tma_load_arguments(attr, args, params) -> dict[int, np.ndarray]:
    """By argument index: the view of the pointer argument that the recorded bounds and strides
    give, where TMA can take it (`tma_common.view_problem`), else an aligned contiguous copy of it
    with rows padded to 16 bytes (the kernel only reads it, so the copy reads the same)."""
    from wsdialects.transforms.tma_common import load_contract, load_offset_problem, load_step, load_view, view_holds

    out = {}
    for e in load_contract(attr):
        arr = args[e["ptr"]]
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            out[e["desc"]] = np.zeros((0, 0), dtype_of(params[e["desc"]].type.block))  # the pointer's check says why
            continue
        flat = arr.reshape(-1)
        why = load_offset_problem(e, args, lambda i: f"%{params[i].name_hint or i}")
        if why is not None:
            raise TypeError(f"argument {e['ptr']} (%{params[e['ptr']].name_hint or e['ptr']}): {why}")
        rows, cols, s = load_view(e, args, flat.size)
        if rows < 1 or cols < 1:
            out[e["desc"]] = np.zeros((max(rows, 0), max(cols, 0)), flat.dtype)
            continue
        step = load_step(e, args)  # a column stride other than 1: a contiguous copy
        if not view_holds(rows, cols, s, step, flat.size):
            raise TypeError(f"argument {e['ptr']}: the kernel reads a {rows} x {cols} view with a row stride of "
                            f"{s} elements{f' and a column stride of {step}' if step != 1 else ''}, which the "
                            f"array of {flat.size} elements does not hold")
        out[e["desc"]] = _view(flat, [rows, cols], [s, step], True, f"argument {e['ptr']}")
    return out


def host_desc_arguments(attr, args, params) -> dict[int, np.ndarray]:
    """By argument index: the tensor each `ws.host_descs` descriptor covers, sizes and strides
    evaluated at `args`, as a view of the pointer argument where TMA can take it, else an aligned
    copy where the kernel only reads that argument; TypeError where the tensor does not lie inside
    the array, or TMA cannot take the view of an argument the kernel writes."""
    from wsdialects.transforms.tma_common import host_desc_contract, host_desc_view

    out = {}
    for e in host_desc_contract(attr):
        i, arr = e["ptr"], args[e["ptr"]]
        block = params[e["desc"]].type.block
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            out[e["desc"]] = np.zeros((0,) * len(e["shape"]), dtype_of(block))  # the pointer's check says why
            continue
        flat = arr.reshape(-1)
        shape, strides = host_desc_view(e, args)
        where = f"argument {i} (%{params[i].name_hint or i})"
        if any(n < 1 for n in shape) or any(s < 0 for s in strides) \
                or sum((n - 1) * s for n, s in zip(shape, strides)) >= flat.size:
            raise TypeError(f"{where}: the kernel makes a descriptor of a {' x '.join(map(str, shape))} tensor with "
                            f"strides {strides} over it, which the array of {flat.size} elements does not hold")
        out[e["desc"]] = _view(flat, shape, strides, not e["stored"], where)
    return out
