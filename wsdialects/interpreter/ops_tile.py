"""Semantics of the `tile` dialect over numpy.

Pointer tiles are element offsets into the caller's flat array; a masked-on lane
outside the array is a fault (the GPU would read garbage). TMA accesses clip to
the global array: out-of-bounds reads give 0, out-of-bounds writes are dropped; a reducing
`tile.desc_store` combines the block's in-bounds elements with the array's.
`tile.dot` rounds nothing further (its inputs already have their element type)
and accumulates in fp32.
"""

from __future__ import annotations

import numpy as np

from wsdialects.interpreter.core import impl, where
from wsdialects.interpreter.values import Descriptor, InterpretError, Pointer, PtrTile, dtype_of, mma_product
from wsdialects.nvgpu.memory import staging_alloc
from wsdialects.tile import shape_of


@impl("tile.program_id")
def _program_id(frame, op, _):
    return [np.int32(frame.pid[op.axis.value.data])]


@impl("tile.num_programs")
def _num_programs(frame, op, _):
    return [np.int32(frame.grid[op.axis.value.data])]


@impl("tile.make_range")
def _make_range(frame, op, _):
    return [np.arange(op.start.value.data, op.end.value.data, dtype=np.int32)]


@impl("tile.splat")
def _splat(frame, op, a):
    shape = shape_of(op.result.type)
    x = a[0]
    if isinstance(x, Pointer):
        return [PtrTile(x.buf, np.full(shape, x.offset, dtype=np.int64))]
    return [np.full(shape, x, dtype=dtype_of(op.result.type))]


def _on_offsets(fn):
    """Apply a shape function to a data tile or to a pointer tile's offsets."""

    def run(frame, op, a):
        x = a[0]
        if isinstance(x, PtrTile):
            return [PtrTile(x.buf, fn(op, x.offsets))]
        return [fn(op, x)]

    return run


impl("tile.broadcast")(_on_offsets(lambda op, x: np.broadcast_to(x, shape_of(op.result.type))))
impl("tile.expand_dims")(_on_offsets(lambda op, x: np.expand_dims(x, op.axis.value.data)))
impl("tile.trans")(_on_offsets(lambda op, x: np.transpose(x, tuple(op.order.get_values()))))


@impl("tile.addptr")
def _addptr(frame, op, a):
    p, off = a
    if isinstance(p, Pointer):
        return [Pointer(p.buf, p.offset + int(off))]
    return [PtrTile(p.buf, p.offsets + np.asarray(off, dtype=np.int64))]


def _lanes(op, p, mask):
    """(buffer, offsets, mask) of a scalar or tile pointer access, bounds-checked."""
    if isinstance(p, Pointer):
        offs, buf = np.array(p.offset, dtype=np.int64), p.buf
    else:
        offs, buf = p.offsets, p.buf
    m = np.ones(offs.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    bad = m & ((offs < 0) | (offs >= buf.size))
    if np.any(bad):
        first = int(offs[bad].flat[0])
        raise InterpretError(
            f"{where(op)}{op.name}: out-of-bounds access at element {first} of a "
            f"{buf.size}-element array ({int(bad.sum())} lanes); mask the access"
        )
    return buf, offs, m


@impl("tile.load")
def _load(frame, op, a):
    p, mask = a[0], a[1] if len(a) > 1 else None
    other = a[2] if len(a) > 2 else None
    buf, offs, m = _lanes(op, p, mask)
    dt = dtype_of(op.result.type)
    out = np.zeros(offs.shape, dtype=dt) if other is None else np.array(other, dtype=dt, copy=True)
    out[m] = buf[offs[m]]
    return [out if out.ndim else out[()]]


@impl("tile.store")
def _store(frame, op, a):
    p, value = a[0], a[1]
    buf, offs, m = _lanes(op, p, a[2] if len(a) > 2 else None)
    v = np.broadcast_to(np.asarray(value, dtype=buf.dtype), offs.shape)
    buf[offs[m]] = v[m]
    return []


def _window(desc: Descriptor, idx):
    """Slices of the block in global coordinates and in block coordinates. A 2-D block of
    a 3-D array takes a leading index too (the block is one slice of the array there)."""
    w = _window_full(desc, idx)
    return None if w is None else w[:2]


def _window_full(desc: Descriptor, idx):
    """`_window`, and whether the block lies wholly inside the array."""
    block, shape = desc.block, desc.array.shape
    n = len(idx)
    if len(shape) != n:
        raise TypeError(f"a {len(shape)}-D array is accessed through a {'x'.join(map(str, block))} "
                        f"block with {n} indices: pass a {n}-D array")
    extra = n - len(block)
    if extra < 0:  # (fewer indices than block dimensions: the block's first ones, as zip pairs them)
        block, extra = block[:n], 0
    g, b = [], []
    full = True
    for d in range(n):
        start, extent = idx[d], shape[d]
        end = start + (block[d - extra] if d >= extra else 1)
        lo = start if start > 0 else 0
        hi = end if end < extent else extent
        if hi <= lo:
            return None
        g.append(slice(lo, hi))
        if d >= extra:
            b.append(slice(lo - start, hi - start))
            if lo != start or hi != end:
                full = False
    return tuple(g), tuple(b), full


def _box(desc: Descriptor, idx) -> np.ndarray:
    """The block at `idx` of the array, zero outside it (a TMA load)."""
    w = _window_full(desc, idx)
    if w is not None and w[2]:  # every element is written: no zeros first
        out = np.empty(desc.block, dtype=desc.array.dtype)
        out[w[1]] = desc.array[w[0]]
        return out
    out = np.zeros(desc.block, dtype=desc.array.dtype)
    if w is not None:
        out[w[1]] = desc.array[w[0]]
    return out


@impl("tile.desc_load")
def _desc_load(frame, op, a):
    desc, idx = a[0], [int(i) for i in a[1:]]
    return [_box(desc, idx)]


@impl("tile.desc_store")
def _desc_store(frame, op, a):
    desc, idx, value = a[0], [int(i) for i in a[1:-1]], a[-1]
    if any(i < 0 for i in idx):  # loads clip below 0 (zeros); stores do not: on an H200 a reduce-add
        # box starting at column -16 stops the kernel with "illegal instruction"
        raise InterpretError(f"{where(op)}tile.desc_store: the box starts at {idx}; a TMA store's coordinates "
                             "must be >= 0 (only a box running past the tensor's end is clipped)")
    alloc = staging_alloc(op)  # staged in a released ring slot (ws-stage-in-slot): written there, read by TMA
    if alloc is not None:
        slot = frame.read(alloc.results[0], op)
        slot[0] = np.asarray(value)
        value = slot[0]
    w = _window(desc, idx)
    if w is not None:
        part = np.asarray(value)[w[1]]
        kind = op.reduce_kind
        if kind is None:
            desc.array[w[0]] = part
        else:  # programs run one at a time: racing reductions combine in some order, as on the GPU
            desc.array[w[0]] = _REDUCE[kind](desc.array[w[0]], part.astype(desc.array.dtype))
    return []


_REDUCE = {"add": np.add, "min": np.minimum, "max": np.maximum}


@impl("tile.dot")
def _dot(frame, op, a):
    x, y, acc = a
    return [mma_product(x, y, acc)]


@impl("tile.reduce")
def _reduce(frame, op, a):
    x = np.asarray(a[0])
    axis = op.axis.value.data
    kind = op.kind.data
    dt = dtype_of(op.src.type)
    if kind == "sum":
        r = np.sum(x.astype(np.float64) if dt.kind != "b" and dt.kind not in "iu" else x.astype(np.int64), axis=axis)
    elif kind == "max":
        r = np.max(x, axis=axis)
    else:
        r = np.min(x, axis=axis)
    r = np.asarray(r).astype(dt)
    return [r if r.ndim else r[()]]
