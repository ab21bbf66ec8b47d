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


def _descriptor_arrays(entries: list[dict], args, params) -> dict[int, np.ndarray]:
    """By descriptor argument: the array the descriptor of each contract entry covers
    (`tma_common.launch_view`): a view of the pointer argument where TMA can take it, else an
    aligned copy with rows padded to 16 bytes (the kernel only reads it, so the copy reads the
    same), an empty array for an empty view; TypeError saying why a launch is refused."""
    from wsdialects.transforms.tma_common import launch_view, padded_cols

    out = {}
    for e in entries:
        i, arr = e["ptr"], args[e["ptr"]]
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            dtype = dtype_of(params[e["desc"]].type.block)
            out[e["desc"]] = np.zeros((0,) * len(e["shape"]), dtype)  # the pointer argument's own check says why
            continue
        flat = arr.reshape(-1)
        v = launch_view(e, args, flat.size, flat.itemsize, flat.ctypes.data, lambda k: f"%{params[k].name_hint or k}")
        if v.problem is not None:
            raise TypeError(f"argument {i} (%{params[i].name_hint or i}): {v.problem}")
        if v.empty:
            out[e["desc"]] = np.zeros(v.shape, flat.dtype)
            continue
        view = np.lib.stride_tricks.as_strided(flat, v.shape, [s * flat.itemsize for s in v.strides])
        if v.copy:
            copy = np.zeros((*v.shape[:-1], padded_cols(v.shape[-1], flat.itemsize)), flat.dtype)
            copy[..., :v.shape[-1]] = view
            view = copy[..., :v.shape[-1]]
        out[e["desc"]] = view
    return out


def tma_load_arguments(attr, args, params) -> dict[int, np.ndarray]:
    """By argument index: the array each `ws.tma_loads` view covers (`_descriptor_arrays`)."""
    from wsdialects.transforms.tma_common import load_contract

    return _descriptor_arrays(load_contract(attr), args, params)


def host_desc_arguments(attr, args, params) -> dict[int, np.ndarray]:
    """By argument index: the tensor each `ws.host_descs` descriptor covers, sizes and strides
    evaluated at `args` (`_descriptor_arrays`); an argument the kernel writes through must be
    one TMA can take as it is."""
    from wsdialects.transforms.tma_common import host_desc_contract

    return _descriptor_arrays(host_desc_contract(attr), args, params)
