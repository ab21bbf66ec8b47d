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

The store is matched exactly: `tile.addptr(splat(p), R' + C')` with R' = broadcast(expand_dims(
(splat(r0) + range(0, BM)) * splat(S), 1)), C' = broadcast(expand_dims(splat(c0) + range(0, BN),
0)) and the mask the `andi` of those row and column indices compared `slt` with splat(M) and
splat(N); p, M, N and S are arguments of the kernel (operands of addi / muli / andi in either
order). Any other store stays as it is, with a remark saying why unless `remarks=false` (what
`ws-hopper` passes, so that a kernel with no such store compiles quietly).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, TensorType, i32
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass

from wsdialects.arith import CmpiOp
from wsdialects.tile import (
    AddPtrOp,
    BroadcastOp,
    DescStoreOp,
    DescType,
    ExpandDimsOp,
    MakeRangeOp,
    StoreOp,
)
from wsdialects.transforms.partition import kernels, remark
from wsdialects.transforms.tma_common import (
    NoMatch,
    add_kernel_arg,
    box_problem,
    either,
    kernel_arg,
    op_of,
    splat_of,
)

TMA_STORES_ATTR = "ws.tma_stores"


def _range(v: SSAValue) -> int:
    r = op_of(v, MakeRangeOp)
    if r.start.value.data != 0:
        raise NoMatch
    return r.end.value.data


def _index(v: SSAValue) -> tuple[SSAValue, int]:
    """splat(base) + range(0, n) -> (base, n)."""
    return either(op_of(v, arith.AddiOp), splat_of, _range)


def _spread(v: SSAValue, axis: int) -> SSAValue:
    """broadcast(expand_dims(x, axis)) -> x."""
    e = op_of(op_of(v, BroadcastOp).operands[0], ExpandDimsOp)
    if e.axis.value.data != axis:
        raise NoMatch
    return e.operands[0]


def _bound(v: SSAValue, kernel: func.FuncOp) -> tuple[SSAValue, int]:
    """cmpi slt(index, splat(arg)) -> (index tile, arg position)."""
    c = op_of(v, CmpiOp)  # on tiles: wsdialects' arith.cmpi
    if c.predicate.value.data != 2:  # slt
        raise NoMatch
    return c.operands[0], kernel_arg(splat_of(c.operands[1]), kernel)


def match(store: StoreOp, kernel: func.FuncOp) -> dict:
    """The store's pieces (see the module), or NoMatch."""
    if store.mask is None:
        raise NoMatch
    vt = store.value.type
    if not isinstance(vt, TensorType) or len(vt.get_shape()) != 2:
        raise NoMatch
    bm, bn = vt.get_shape()
    ptr = op_of(store.ptr, AddPtrOp)
    base = kernel_arg(splat_of(ptr.operands[0]), kernel)
    row_off, cols = either(op_of(ptr.operands[1], arith.AddiOp), lambda x: _spread(x, 1), lambda x: _spread(x, 0))
    rows, stride = either(op_of(row_off, arith.MuliOp), lambda x: x, lambda x: kernel_arg(splat_of(x), kernel))
    (r_bound, m), (c_bound, n) = either(op_of(store.mask, arith.AndIOp), lambda x: _bound(_spread(x, 1), kernel),
                                         lambda x: _bound(_spread(x, 0), kernel))
    (r0, nr), (c0, nc) = _index(rows), _index(cols)
    if r_bound is not rows or c_bound is not cols or (nr, nc) != (bm, bn):
        raise NoMatch
    return {"ptr": base, "rows": m, "cols": n, "stride": stride, "r0": r0, "c0": c0}


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
        then.add_ops([DescStoreOp(desc, [m["r0"], m["c0"]], store.value), scf.YieldOp()])
        other = Block()
        branch = scf.IfOp(flag.result, [], Region(then), Region(other))
        block = store.parent_block()
        block.insert_ops_before([zero, flag, branch], store)
        store.detach()
        other.add_ops([store, scf.YieldOp()])
        at = {k: IntegerAttr(m[k], 32) for k in ("ptr", "rows", "cols", "stride")}
        return DictionaryAttr({**at, "desc": IntegerAttr(desc.index, 32)})
