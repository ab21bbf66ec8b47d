"""`ws-tma-store`: a bounds-masked store of a row-major tile through pointers becomes a TMA store.

A GEMM written the Triton way stores its tile through a tile of pointers `c + (r0 + i) * S +
(c0 + j)` masked by `(r0 + i < M) & (c0 + j < N)`. A TMA store of the same box, over an M x N
tensor with row stride S, writes exactly those elements (TMA drops what lies past M and N), and
it is asynchronous: the consumers stage the tile in shared memory and go on, where 16-byte stores
keep them busy for the whole epilogue (in a persistent kernel the store overlaps the next tile's
main loop). The pass adds two trailing kernel arguments per such
store, a descriptor and a flag, and records where the runtime finds the pointer, M, N and S:
`ws.tma_stores = [{ptr = P, rows = R, cols = C, stride = S}]` (argument indices). At launch the
runtime (and the interpreter) builds the descriptor from those arguments and sets the flag where
TMA can take them (16-byte aligned base and row stride); else the kernel takes the pointer store:

    tile.store %ptrs, %v, %mask : ...          ==>   %tma = arith.cmpi ne, %c_ptr_tma_ok, %c0
                                                      scf.if %tma {
                                                        tile.desc_store %c_ptr_tma[%r0, %c0], %v : ...
                                                      } else {
                                                        tile.store %ptrs, %v, %mask : ...
                                                      }

The store is read with ws-tma-load's affine analysis (tma_affine.py): its pointers are a kernel
argument c plus offsets affine in the tile's indices, with column coefficient 1 and row
coefficient a kernel argument S, in whatever association the kernel adds them (Triton's tutorial
writes `c + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]`, stride_cn being the
constant 1 once a launch with a contiguous C specializes it); the mask is the bounds tests
`r0 + i < M` and `c0 + j < N` for kernel arguments M and N, and the pointers start at
r0 * S + c0. Any other store stays as it is, with a remark saying why unless `remarks=false`
(what `ws-hopper` passes, so that a kernel with no such store compiles quietly).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, TensorType, i32
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass

from wsdialects.tile import DescStoreOp, DescType, StoreOp
from wsdialects.transforms.partition import kernels, remark
from wsdialects.transforms.tma_affine import Analysis, Left, Poly, add, const, key, materialize, mul
from wsdialects.transforms.tma_common import NoMatch, add_kernel_arg, box_problem

TMA_STORES_ATTR = "ws.tma_stores"


def _argument_atoms(an: Analysis, p: Poly) -> list[int]:
    """The atoms of p that are kernel arguments with coefficient 1 (the bound M in `M - r0`)."""
    return [m[0] for m, k in p.items() if k == 1 and len(m) == 1 and an.of_arguments({m: 1})]


def match(store: StoreOp, kernel: func.FuncOp, an: Analysis | None = None) -> dict:
    """The store's pieces (see the module), or NoMatch: the pointers are `c + off` with off affine in
    the tile's indices (ws-tma-load's analysis, so `c + S * r[:, None] + col[None, :]` in any
    association reads the same), column coefficient 1, row coefficient a kernel argument S, and the
    mask bounds rows by M - r0 and columns by N - c0 for kernel arguments M, N with off's start
    r0 * S + c0. r0 and c0 come back as polynomials (`materialize` computes them)."""
    if store.mask is None:
        raise NoMatch
    vt = store.value.type
    if not isinstance(vt, TensorType) or len(vt.get_shape()) != 2:
        raise NoMatch
    an = an or Analysis(kernel)
    try:
        base, off = an.pointer(store.ptr)
        upper, lower = an.bounds(store.mask, 2)
    except (Left, NoMatch):
        raise NoMatch from None
    if off.wraps or any(b is not None for b in lower) or None in upper or off.axes[1] != const(1):
        raise NoMatch
    s = an.argument_atom(off.axes[0])
    if s is None:
        raise NoMatch
    for m in _argument_atoms(an, upper[0]):
        r0 = add({(m,): 1}, upper[0], -1)
        for n in _argument_atoms(an, upper[1]):
            c0 = add({(n,): 1}, upper[1], -1)
            if key(add(mul(r0, off.axes[0]), c0)) == key(off.scalar):
                index = lambda a: an.atoms[a].index  # noqa: E731 (a kernel argument's position)
                return {"ptr": base, "rows": index(m), "cols": index(n), "stride": index(s), "r0": r0, "c0": c0,
                        "analysis": an}
    raise NoMatch


def _why_not(store: StoreOp) -> str | None:
    """Why a store that matches cannot be a TMA store (its box), else None."""
    return box_problem(store.value.type)


@dataclass(frozen=True)
class TmaStorePass(ModulePass):
    """Bounds-masked row-major pointer-tile stores become TMA stores, the pointer store kept for launches TMA cannot take."""

    name = "ws-tma-store"
    remarks: bool = True

    def apply(self, ctx, op: ModuleOp) -> None:
        for kernel in kernels(op):
            if TMA_STORES_ATTR in kernel.attributes:
                continue  # converted already
            entries = []
            for store in [o for o in kernel.body.walk() if isinstance(o, StoreOp)]:
                try:
                    m = match(store, kernel)
                except NoMatch:
                    if self.remarks and isinstance(store.value.type, TensorType) \
                            and len(store.value.type.get_shape()) == 2:
                        remark(store, "ws-tma-store: not a TMA store: its pointers and mask are not c + (r0 + i) * S "
                                      "+ (c0 + j) and (r0 + i < M) & (c0 + j < N) of kernel arguments c, S, M, N")
                    continue
                why = _why_not(store)
                if why is not None:
                    if self.remarks:
                        remark(store, f"ws-tma-store: not a TMA store: {why}")
                    continue
                entries.append(self.rewrite(kernel, store, m))
            if entries:
                kernel.attributes[TMA_STORES_ATTR] = ArrayAttr(entries)
            elif self.remarks:
                remark(kernel, "ws-tma-store: no pointer-tile store to turn into a TMA store")

    @staticmethod
    def rewrite(kernel: func.FuncOp, store: StoreOp, m: dict) -> DictionaryAttr:
        name = kernel.body.block.args[m["ptr"]].name_hint or f"arg{m['ptr']}"
        desc = add_kernel_arg(kernel, DescType(store.value.type), f"{name}_tma")
        ok = add_kernel_arg(kernel, i32, f"{name}_tma_ok")
        zero = arith.ConstantOp(IntegerAttr(0, 32))
        flag = arith.CmpiOp(ok, zero.result, "ne")
        flag.result.name_hint = "tma"
        then = Block()
        r0, c0 = (materialize(m[x], m["analysis"], store) for x in ("r0", "c0"))
        then.add_ops([DescStoreOp(desc, [r0, c0], store.value), scf.YieldOp()])
        other = Block()
        branch = scf.IfOp(flag.result, [], Region(then), Region(other))
        block = store.parent_block()
        block.insert_ops_before([zero, flag, branch], store)
        store.detach()
        other.add_ops([store, scf.YieldOp()])
        at = {k: IntegerAttr(m[k], 32) for k in ("ptr", "rows", "cols", "stride")}
        return DictionaryAttr({**at, "desc": IntegerAttr(desc.index, 32)})
