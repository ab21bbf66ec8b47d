"""Semantics over numpy of the `tile` ops Triton's TTIR brought in: `tile.reshape`,
`tile.join`, `tile.split` (row-major regrouping), `tile.make_desc` (a strided view of the
pointer's buffer as the descriptor's global tensor) and `tile.atomic_add` (programs run one
at a time, so an atomic add is a read and a write; lanes on one element add in lane order)."""

from __future__ import annotations

import numpy as np

from wsdialects.interpreter.core import impl, where
from wsdialects.interpreter.values import Descriptor, InterpretError, Pointer, dtype_of
from wsdialects.tile import shape_of


@impl("tile.reshape")
def _reshape(frame, op, a):
    return [np.reshape(np.asarray(a[0]), shape_of(op.result.type))]


@impl("tile.join")
def _join(frame, op, a):
    return [np.stack([np.asarray(a[0]), np.asarray(a[1])], axis=-1)]


@impl("tile.split")
def _split(frame, op, a):
    x = np.asarray(a[0])
    return [np.ascontiguousarray(x[..., 0]), np.ascontiguousarray(x[..., 1])]


@impl("tile.make_desc")
def _make_desc(frame, op, a):
    base: Pointer = a[0]
    rank = len(op.shape)
    shape = [int(v) for v in a[1:1 + rank]]
    strides = [int(v) for v in a[1 + rank:]]
    block = tuple(shape_of(op.result.type.block))
    if strides[-1] != 1:
        raise InterpretError(f"{where(op)}tile.make_desc: the innermost stride must be 1 (TMA), got {strides[-1]}")
    if any(s <= 0 for s in shape) or any(s < 0 for s in strides):
        raise InterpretError(f"{where(op)}tile.make_desc: sizes must be positive and strides non-negative, "
                             f"got sizes {shape}, strides {strides}")
    last = base.offset + sum((n - 1) * s for n, s in zip(shape, strides))
    if base.offset < 0 or last >= base.buf.size:
        raise InterpretError(f"{where(op)}tile.make_desc: a {'x'.join(map(str, shape))} tensor with strides "
                             f"{strides} at element {base.offset} reaches element {last} of a "
                             f"{base.buf.size}-element array")
    item = base.buf.itemsize
    view = np.lib.stride_tricks.as_strided(base.buf[base.offset:], shape=shape, strides=[s * item for s in strides])
    return [Descriptor(view, block)]


@impl("tile.desc_index")
def _desc_index(frame, op, a):
    descs, g = a[0], int(a[1])
    if not 0 <= g < len(descs):
        raise InterpretError(f"{where(op)}tile.desc_index: index {g} outside the array of {len(descs)} descriptors")
    return [descs[g]]


@impl("tile.atomic_add")
def _atomic_add(frame, op, a):
    from wsdialects.interpreter.ops_tile import _lanes

    p, value = a[0], a[1]
    buf, offs, m = _lanes(op, p, a[2] if len(a) > 2 else None)
    dt = dtype_of(op.result.type)
    v = np.broadcast_to(np.asarray(value, dtype=dt), offs.shape)
    old = np.zeros(offs.shape, dtype=dt)
    for i in zip(*np.nonzero(m)) if offs.ndim else [()]:
        if offs.ndim == 0 and not m:
            break
        old[i] = buf[offs[i]]
        buf[offs[i]] = buf[offs[i]] + v[i]
    return [old if old.ndim else old[()]]
