"""The order of an fp8 P·V's keys in shared memory (ws-lower-layouts' option `fp8-keys`).

fp8 wgmma reads its register A in the 8-bit fragment (lane q of a quad: k positions 4q .. 4q + 3
and 16 + 4q .. 16 + 4q + 3), while P comes out of the accumulator fragment (lane q: columns 2q,
2q + 1, 8 + 2q, 9 + 2q of each 16). With `fp8-keys=natural` the conversion moves bytes between the lanes of a quad (two shuffles per pair of A registers). With
`fp8-keys=interleaved` (FlashAttention-3's order, the default) the V^T slot stores each 16 keys in
`wsdialects.layout.interleaved` order (position 4c + 2 i1 + i0: key 8 i1 + 2c + i0) and P's A
fragment takes the same order, which is lane q's own bytes: one byte permute per register, no
shuffles. The product is unchanged (the same permutation of the k positions on both sides), and
so is every value: only layouts say it.

    nvgpu.smem.store %v_in_t_r, %aref_vt_buf0[%s] : tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 4], interleave = 8>>, ...
    %vt = nvgpu.smem.view %aref_vt_buf0[%s] -> tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [1, 0], interleave = 8>>
    %p8_frag = nvgpu.convert_layout %p8 : ... -> tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>, interleave = 8>>

Only a buffer that is written by transposing copies (a tile.trans of a slot view, stored as
#layout.transpose_copy) and read only as the B of dots whose A is an 8-bit register tile is
interleaved (the producer's V^T ring, or ws-stage-operands' staging buffer of the consumers); any
other buffer keeps the natural order.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from wsdialects.lower.llvm.transpose_copy import transpose_copy_for
from wsdialects.lower.llvm.types import nbytes

FP8_KEYS = ("natural", "interleaved")


def _branch_warps(op: Operation) -> int | None:
    cur = op.parent_op()
    while cur is not None and cur.name != "nvgpu.wg.branch":
        cur = cur.parent_op()
    return cur.num_warps if cur is not None else None


def _copied_in(store: Operation) -> bool:
    """`store` writes a transposing copy that #layout.transpose_copy lowers: tile.trans [1, 0]
    of a slot view, 8-bit, in units its branch's warps divide."""
    v = store.operands[0]
    t = v.owner
    if not isinstance(t, Operation) or t.name != "tile.trans" or list(t.order.get_values()) != [1, 0]:
        return False
    src = t.operands[0].owner
    shape = v.type.get_shape()
    warps = _branch_warps(store)
    return (isinstance(src, Operation) and src.name == "nvgpu.smem.view" and len(shape) == 2
            and nbytes(v.type.element_type) == 1 and warps is not None
            and transpose_copy_for(shape[0], shape[1], warps) is not None)


def _read_as_b(view: Operation) -> bool:
    """Every use of the slot view is a tile.trans whose every use is the B of a wgmma with an
    8-bit register A (not a shared-memory tile)."""
    uses = [u.operation for u in view.results[0].uses]
    if not uses:
        return False
    for t in uses:
        if t.name != "tile.trans" or not list(t.results[0].uses):
            return False
        for u in t.results[0].uses:
            dot = u.operation
            if dot.name != "nvgpu.wgmma.mma_async" or u.index != 1:
                return False
            a = dot.operands[0]
            if nbytes(a.type.element_type) != 1 or (isinstance(a.owner, Operation)
                                                    and a.owner.name in ("nvgpu.smem.view", "tile.trans")):
                return False
    return True


def interleaved_buffers(module: Operation) -> set[SSAValue]:
    """The buffers whose slots ws-lower-layouts{fp8-keys=interleaved} stores interleaved."""
    out = set()
    bufs = {}
    for o in module.walk():
        if o.name in ("nvgpu.smem.store", "nvgpu.smem.view"):
            bufs.setdefault(o.operands[1] if o.name == "nvgpu.smem.store" else o.operands[0], []).append(o)
    for buf, ops in bufs.items():
        if len(list(buf.uses)) != len(ops):
            continue  # used otherwise too (a TMA copy into it, say)
        stores = [o for o in ops if o.name == "nvgpu.smem.store"]
        views = [o for o in ops if o.name == "nvgpu.smem.view"]
        if stores and views and all(_copied_in(s) for s in stores) and all(_read_as_b(v) for v in views):
            out.add(buf)
    return out


def interleaved_b(dot: Operation, bufs: set[SSAValue]) -> bool:
    """The B of `dot` is a tile.trans of a view of an interleaved buffer."""
    t = dot.operands[1].owner
    if not isinstance(t, Operation) or t.name != "tile.trans":
        return False
    v = t.operands[0].owner
    return isinstance(v, Operation) and v.name == "nvgpu.smem.view" and v.operands[0] in bufs
