"""`ws-tma-load`: loads of row-major tiles through pointers become TMA loads of a descriptor the
launch builds.

Tawa's producer is a TMA warp group, but the classic Triton matmul and attention address their
tiles through pointers, `a + rows[:, None] * stride_am + cols[None, :]`, advanced by a
loop-invariant number of elements each iteration (an iter_arg pointer tile `ptrs + BK`, or
offsets recomputed from the induction variable), masked at the bounds (`rows < M`,
`cols < K - k * BK`) with `other = 0`. Such a load reads the box at (r, c) of an R x C tensor of
row stride S, with zeros past R and C: what a TMA load of a descriptor over that tensor gives
(TMA fills what lies out of bounds with zeros). The pass rewrites it so, and the loop then has
what `ws-partition` warp-specializes:

    %a = tile.load %a_ptrs, %mask, %zero : tensor<128x64x!tile.ptr<f16>> -> tensor<128x64xf16>
      ==>
    %a = tile.desc_load %a_tma[%r, %c] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>

The analysis evaluates the offsets symbolically: each integer tile is a polynomial over scalar
SSA values (kernel arguments, program ids, the induction variable, anything else opaque) plus
one such coefficient per axis (make_range, splat, expand_dims, broadcast, addi, subi, muli).
A load converts when the offsets are `base + S * i + j` plus a scalar (S a kernel argument: the
innermost stride is 1), the scalar splits into `r * S + c`, the mask is absent or an `andi` of
bounds tests `index < bound` (slt / sle / sgt / sge) whose bounds, moved to the tensor's
origin, are polynomials of kernel arguments (`rows < M` gives R = M; `cols < K - k * BK` with
c = k * BK gives C = K), and `other` is absent or +0. An unmasked row axis reads as far as the
tensor goes; an unmasked column axis must be a constant range. Coordinates are taken to be
non-negative, as the pointer form's own bounds tests assume. The kernel gets one trailing
`!tile.desc` argument per distinct view and records the launch contract on the kernel:

    ws.tma_loads = [{ptr = 0, desc = 9, shape = [[[1, 3]], [[1, 5]]], stride = [[1, 6]]}]

(argument indices; each bound and the row stride is a polynomial of arguments, a list of
monomials `[coefficient, argument, ...]`; `extent` marks a row count read from the tensor).

Where TMA cannot take the view at launch (base or row stride not a multiple of 16 bytes), the
pointer form cannot be the fallback on Hopper: the loop of a GEMM with pointer loads has its
B operand in registers, which wgmma cannot read, so a pointer copy of the loop behind a flag
(ws-tma-store's way) would not lower. The contract guarantees TMA instead: the runtime (and
the interpreter) builds the descriptor over the argument's view where TMA can take it, and
over an aligned copy of the view (row stride padded to 16 bytes) where it cannot, which gives
the same values since the kernel only reads that argument (a load through an argument the
kernel also stores through is left as it is). A launch that needs a copy pays one pass over
that input.

Each load it converts, and each pointer load of a tile it leaves (and why), is a remark;
`remarks=false` (what ws-specialize and ws-hopper pass) keeps only those of loads left in a
loop, where they cost the warp specialization.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, IntegerAttr, IntegerType, ModuleOp, TensorType, i32
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.arith import CmpiOp, splat_constant
from wsdialects.tile import (
    AddPtrOp,
    BroadcastOp,
    DescLoadOp,
    DescType,
    ExpandDimsOp,
    LoadOp,
    MakeRangeOp,
    PtrType,
    SplatOp,
)
from wsdialects.transforms.partition import kernels, remark
from wsdialects.transforms.tma_common import NoMatch, add_kernel_arg, box_problem

TMA_LOADS_ATTR = "ws.tma_loads"

# A polynomial over scalar SSA values: {monomial (sorted atom numbers): coefficient}.
Poly = dict


class Left(Exception):
    """A load the pass leaves as it is, and why."""


def _constant(v: SSAValue) -> int | float | None:
    """The one value of an `arith.constant` (scalar or splat tile), else None."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "arith.constant":
        val = o.properties.get("value")
        if val is None:
            val = o.attributes.get("value")
        if isinstance(val, (IntegerAttr, FloatAttr)):
            return val.value.data
    return splat_constant(v)


def _key(p: Poly) -> tuple:
    return tuple(sorted(p.items()))


def _dominates(v: SSAValue, at: Operation) -> bool:
    """Whether `v` is defined where `at` can use it."""
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op()
        return owner is not None and owner.is_ancestor(at)
    cur: Operation | None = at
    while cur is not None and cur.parent_block() is not v.owner.parent_block():
        cur = cur.parent_op()
    return cur is not None and cur is not v.owner and v.owner.is_before_in_block(cur)


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return {k: v for k, v in out.items() if v}


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            k = tuple(sorted(ka + kb))
            out[k] = out.get(k, 0) + va * vb
    return {k: v for k, v in out.items() if v}


def _const(c: int) -> Poly:
    return {(): c} if c else {}


class _Aff:
    """An integer tile: value[i0, i1, ...] = scalar + sum over axes of axes[a] * i_a."""

    def __init__(self, scalar: Poly, axes: list[Poly]):
        self.scalar, self.axes = scalar, axes

    def combine(self, other: _Aff, sign: int) -> _Aff:
        return _Aff(_add(self.scalar, other.scalar, sign), [_add(x, y, sign) for x, y in zip(self.axes, other.axes)])

    def uniform(self) -> bool:
        return not any(self.axes)


class _Analysis:
    """Symbolic offsets, pointers and masks of one kernel."""

    def __init__(self, kernel: func.FuncOp):
        self.kernel = kernel
        self.atoms: list[SSAValue] = []
        self.number: dict[SSAValue, int] = {}
        self.known: dict[tuple, SSAValue] = {}  # a polynomial -> a scalar of the kernel that computes it

    def atom(self, v: SSAValue) -> Poly:
        if v not in self.number:
            self.number[v] = len(self.atoms)
            self.atoms.append(v)
        return {(self.number[v],): 1}

    def scalar(self, v: SSAValue) -> Poly:
        p = self._scalar(v)
        self.known.setdefault(_key(p), v)
        return p

    def _scalar(self, v: SSAValue) -> Poly:
        c = _constant(v)
        if isinstance(c, int) and isinstance(v.type, IntegerType):
            return _const(c)
        o = v.owner
        if isinstance(o, (arith.AddiOp, arith.SubiOp)):
            return _add(self.scalar(o.lhs), self.scalar(o.rhs), 1 if isinstance(o, arith.AddiOp) else -1)
        if isinstance(o, arith.MuliOp):
            return _mul(self.scalar(o.lhs), self.scalar(o.rhs))
        return self.atom(v)

    def tile(self, v: SSAValue) -> _Aff:
        t = v.type
        if not isinstance(t, TensorType):
            raise NoMatch
        rank, o = len(t.get_shape()), v.owner
        c = _constant(v)
        if isinstance(c, int):
            return _Aff(_const(c), [{}] * rank)
        if isinstance(o, SplatOp):
            return _Aff(self.scalar(o.operands[0]), [{}] * rank)
        if isinstance(o, MakeRangeOp):
            return _Aff(_const(o.start.value.data), [_const(1)])
        if isinstance(o, ExpandDimsOp):
            x = self.tile(o.operands[0])
            axes = list(x.axes)
            axes.insert(o.axis.value.data, {})
            return _Aff(x.scalar, axes)
        if isinstance(o, BroadcastOp):
            x = self.tile(o.operands[0])
            src = o.operands[0].type.get_shape()
            return _Aff(x.scalar, [{} if n == 1 else a for n, a in zip(src, x.axes)])
        if isinstance(o, (arith.AddiOp, arith.SubiOp)):
            return self.tile(o.lhs).combine(self.tile(o.rhs), 1 if isinstance(o, arith.AddiOp) else -1)
        if isinstance(o, arith.MuliOp):
            x, y = self.tile(o.lhs), self.tile(o.rhs)
            if not x.uniform():
                x, y = y, x
            if not x.uniform():
                raise NoMatch
            return _Aff(_mul(x.scalar, y.scalar), [_mul(x.scalar, a) for a in y.axes])
        raise NoMatch

    def pointer(self, v: SSAValue) -> tuple[int, _Aff]:
        """(the kernel argument the pointers start from, their offsets in elements)."""
        o = v.owner
        if isinstance(o, SplatOp):
            p = o.operands[0]
            if not (isinstance(p, BlockArgument) and p.block is self.kernel.body.block):
                raise Left("its pointers do not start from a kernel argument")
            return p.index, _Aff({}, [{}] * len(v.type.get_shape()))
        if isinstance(o, AddPtrOp):
            base, off = self.pointer(o.operands[0])
            try:
                return base, off.combine(self.tile(o.operands[1]), 1)
            except NoMatch:
                raise Left("its offsets are not affine in the tile's indices") from None
        if isinstance(v, BlockArgument) and isinstance(loop := v.block.parent_op(), scf.ForOp) and v.index > 0:
            return self.carried(loop, v)
        raise Left("its pointers are not a splat of an argument plus offsets")

    def carried(self, loop: scf.ForOp, v: BlockArgument) -> tuple[int, _Aff]:
        """A pointer tile carried by `loop`: its start plus the iteration count times its step."""
        j = v.index - 1
        step = loop.body.block.last_op.operands[j].owner
        if not (isinstance(step, AddPtrOp) and step.operands[0] is v):
            raise Left("its loop-carried pointers do not advance by a constant step (p = p + d)")
        try:
            d = self.tile(step.operands[1])
        except NoMatch:
            raise Left("its loop-carried pointers advance by a step that is not affine") from None
        if not d.uniform() or not self.invariant(d.scalar, loop):
            raise Left("its loop-carried pointers advance by a step that changes in the loop")
        if _constant(loop.lb) != 0 or _constant(loop.step) != 1:
            raise Left("its loop-carried pointers advance in a loop that does not count 0, 1, 2, ...")
        base, start = self.pointer(loop.iter_args[j])
        moved = _mul(self.atom(loop.body.block.args[0]), d.scalar)
        return base, _Aff(_add(start.scalar, moved), start.axes)

    def invariant(self, p: Poly, loop: scf.ForOp) -> bool:
        return all(not loop.is_ancestor(self.atoms[a].owner if isinstance(self.atoms[a].owner, Operation)
                                        else self.atoms[a].owner.parent_op()) for m in p for a in m)

    def of_arguments(self, p: Poly) -> bool:
        return all(isinstance(self.atoms[a], BlockArgument) and self.atoms[a].block is self.kernel.body.block
                   for m in p for a in m)

    def bounds(self, mask: SSAValue, rank: int) -> list[Poly | None]:
        """Per axis, B with `i_axis < B` (the mask's bounds tests), None where unbounded."""
        out: list[Poly | None] = [None] * rank
        stack = [mask]
        while stack:
            v = stack.pop()
            o = v.owner
            if isinstance(o, BroadcastOp):
                stack.append(o.operands[0])
                continue
            if isinstance(o, arith.AndIOp):
                stack += [o.lhs, o.rhs]
                continue
            if not isinstance(o, CmpiOp):
                raise Left(f"its mask is not a bounds test ('{o.name if isinstance(o, Operation) else v}')")
            pred = o.predicate.value.data
            if pred not in (2, 3, 4, 5):  # slt, sle, sgt, sge
                raise Left(f"its mask is not a bounds test (cmpi predicate {pred})")
            try:
                lhs, rhs = self.tile(o.lhs), self.tile(o.rhs)
            except NoMatch:
                raise Left("its mask compares values that are not affine in the indices") from None
            e = lhs.combine(rhs, -1) if pred in (2, 3) else rhs.combine(lhs, -1)  # e < 0 (or <= 0)
            if pred in (3, 5):
                e = _Aff(_add(e.scalar, _const(-1)), e.axes)
            axes = [a for a, c in enumerate(e.axes) if c]
            if len(axes) != 1 or e.axes[axes[0]] != _const(1):
                raise Left("its mask is not a bounds test (index < bound along one axis)")
            a = axes[0] + rank - len(e.axes)
            if out[a] is not None:
                raise Left(f"its mask bounds axis {a} twice")
            out[a] = _add({}, e.scalar, -1)
        return out


def _is_zero(v: SSAValue | None) -> bool:
    if v is None:
        return True
    c = _constant(v)
    return c is not None and c == 0 and math.copysign(1.0, c) > 0


def _written_arguments(kernel: func.FuncOp) -> set[int]:
    """The kernel arguments some store or atomic op of the kernel writes through (any argument
    its pointer operand depends on)."""
    from wsdialects.transforms.partition import writes_memory

    out: set[int] = set()
    for o in kernel.body.walk():
        if not writes_memory(o) or not o.operands:
            continue
        stack, seen = [o.operands[0]], set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if isinstance(v, BlockArgument):
                if v.block is kernel.body.block:
                    out.add(v.index)
                elif isinstance(p := v.block.parent_op(), scf.ForOp) and v.index > 0:
                    stack += [p.iter_args[v.index - 1], p.body.block.last_op.operands[v.index - 1]]
            elif isinstance(v.owner, Operation):
                stack += list(v.owner.operands)
    return out


def candidate_loads(kernel: func.FuncOp) -> list[LoadOp]:
    """Tile loads the producer could take: at the kernel's top level or in a top-level loop."""
    out = []
    for o in kernel.body.block.ops:
        inner = o.body.block.ops if isinstance(o, scf.ForOp) else [o]
        out += [x for x in inner if isinstance(x, LoadOp) and isinstance(x.result.type, TensorType)]
    return out


def match(load: LoadOp, an: _Analysis, written: set[int]) -> dict:
    """The view and coordinates of a load (see the module), else Left."""
    t = load.result.type
    shape = t.get_shape()
    if len(shape) != 2:
        raise Left(f"a {len(shape)}-D tile (a !tile.desc box is 2-D)")
    if (why := box_problem(t, "load")) is not None:
        raise Left(why)
    if not _is_zero(load.other):
        raise Left("its `other` is not 0 (TMA fills out-of-bounds elements with zeros)")
    base, off = an.pointer(load.ptr)
    if base in written:
        raise Left("the kernel also writes through this argument")
    if off.axes[1] != _const(1):
        raise Left("its innermost stride is not 1")
    stride = off.axes[0]
    if len(stride) != 1 or list(stride.values()) != [1] or len(next(iter(stride))) != 1 \
            or not an.of_arguments(stride):
        raise Left("its row stride is not a kernel argument")
    s = next(iter(next(iter(stride))))
    r: Poly = {}
    c: Poly = {}
    for m, k in off.scalar.items():
        if s in m:
            rest = list(m)
            rest.remove(s)
            r[tuple(rest)] = k
        else:
            c[m] = k
    bounds = an.bounds(load.mask, 2) if load.mask is not None else [None, None]
    shape_polys: list[Poly | None] = []
    for axis, (coord, b) in enumerate(zip((r, c), bounds)):
        if b is None:
            if axis == 0:
                shape_polys.append(None)  # as many rows as the tensor holds
                continue
            if any(m for m in coord):
                raise Left("its columns are unmasked and do not start at a constant")
            b = _const(shape[1])
        total = _add(coord, b)
        if not an.of_arguments(total):
            raise Left(f"its bound on axis {axis} is not a function of the kernel's arguments")
        shape_polys.append(total)
    return {"ptr": base, "stride": stride, "shape": shape_polys, "coords": (r, c)}


def _poly_attr(p: Poly, an: _Analysis) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(k, 64), *(IntegerAttr(an.atoms[a].index, 32) for a in m)])
                      for m, k in sorted(p.items())])


def _coordinate(p: Poly, an: _Analysis, load: Operation) -> SSAValue:
    """A scalar computing p at `load`: one the kernel has, else ops computing the part that does
    not change in the load's loop before the loop, and the rest before the load."""
    known = an.known.get(_key(p))
    if known is not None and _dominates(known, load):
        return known
    loop = load.parent_op()
    if not isinstance(loop, scf.ForOp):
        return _materialize(p, an, load)
    fixed = {m: k for m, k in p.items() if an.invariant({m: k}, loop)}
    moving = {m: k for m, k in p.items() if m not in fixed}
    if not fixed or not moving:
        return _materialize(p, an, load if moving else loop)
    start = an.known.get(_key(fixed))
    if start is None or not _dominates(start, loop):
        start = _materialize(fixed, an, loop)
    rest = _materialize(moving, an, load)
    add = arith.AddiOp(start, rest)
    load.parent_block().insert_op_before(add, load)
    return add.result


def _materialize(p: Poly, an: _Analysis, before: Operation) -> SSAValue:
    """i32 ops computing p, inserted before `before`."""
    known = an.known.get(_key(p))
    if known is not None and _dominates(known, before):
        return known
    block = before.parent_block()
    new: list[Operation] = []

    def const(k: int) -> SSAValue:
        new.append(c := arith.ConstantOp(IntegerAttr(k, 32)))
        return c.result

    total = None
    for m, k in sorted(p.items()):
        term = None
        for a in m:
            v = an.atoms[a]
            term = v if term is None else _emit(new, arith.MuliOp(term, v))
        if term is None:
            term = const(k)
        elif k != 1:
            term = _emit(new, arith.MuliOp(term, const(k)))
        total = term if total is None else _emit(new, arith.AddiOp(total, term))
    if total is None:
        total = const(0)
    block.insert_ops_before(new, before)
    return total


def _emit(new: list, o: Operation) -> SSAValue:
    new.append(o)
    return o.results[0]


def _erase_dead(values: list[SSAValue]) -> None:
    """Erase the pure ops that computed `values` and have no other use left."""
    from xdsl.traits import is_side_effect_free

    stack = [v.owner for v in values if isinstance(v.owner, Operation)]
    while stack:
        o = stack.pop()
        if o.parent is None or any(r.uses for r in o.results) or not is_side_effect_free(o) or o.regions:
            continue
        operands = list(o.operands)
        o.detach()
        o.erase()
        stack += [v.owner for v in operands if isinstance(v.owner, Operation)]


def _drop_carried_pointers(loop: scf.ForOp) -> scf.ForOp:
    """`loop` without the pointer iter_args that only advance themselves now."""
    body = loop.body.block
    yld = body.last_op
    drop = []
    for j, arg in enumerate(body.args[1:]):
        if not isinstance(arg.type, TensorType) or not isinstance(arg.type.element_type, PtrType):
            continue
        nxt = yld.operands[j]
        if loop.results[j].uses or len(list(nxt.uses)) != 1 or not isinstance(nxt.owner, AddPtrOp) \
                or nxt.owner.operands[0] is not arg or len(list(arg.uses)) != 1:
            continue
        drop.append(j)
    if not drop:
        return loop
    keep = [j for j in range(len(loop.iter_args)) if j not in drop]
    new_yield = scf.YieldOp(*[yld.operands[j] for j in keep])
    body.insert_op_before(new_yield, yld)
    steps = [yld.operands[j] for j in drop]
    yld.detach()
    yld.erase()
    _erase_dead(steps)
    inits = [loop.iter_args[j] for j in drop]
    for j in reversed(drop):
        body.erase_arg(body.args[j + 1])
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [loop.iter_args[j] for j in keep], loop.detach_region(loop.body))
    new.attributes.update(loop.attributes)
    loop.parent_block().insert_op_before(new, loop)
    for k, j in enumerate(keep):
        loop.results[j].replace_all_uses_with(new.results[k])
    loop.detach()
    loop.erase()
    _erase_dead(inits)
    return new


@dataclass(frozen=True)
class TmaLoadPass(ModulePass):
    """Bounds-masked row-major pointer-tile loads become TMA loads of descriptors the launch builds."""

    name = "ws-tma-load"
    remarks: bool = True

    def apply(self, ctx, op: ModuleOp) -> None:
        for kernel in kernels(op):
            if TMA_LOADS_ATTR in kernel.attributes:
                continue  # converted already
            self.convert(kernel)

    def convert(self, kernel: func.FuncOp) -> None:
        an = _Analysis(kernel)
        written = _written_arguments(kernel)
        descs: dict = {}
        entries: list[DictionaryAttr] = []
        loads = candidate_loads(kernel)
        for load in loads:
            in_loop = isinstance(load.parent_op(), scf.ForOp)
            try:
                m = match(load, an, written)
            except Left as why:
                if self.remarks or in_loop:
                    remark(load, f"ws-tma-load: left as a pointer load: {why}")
                continue
            t = load.result.type
            key = (m["ptr"], str(sorted(m["stride"].items())), str([sorted(p.items()) if p else None
                                                                     for p in m["shape"]]), str(t))
            if key not in descs:
                name = kernel.body.block.args[m["ptr"]].name_hint or f"arg{m['ptr']}"
                same = sum(1 for k in descs if k[0] == m["ptr"])
                desc = add_kernel_arg(kernel, DescType(TensorType(t.element_type, t.get_shape())),
                                      f"{name}_tma{same or ''}")
                descs[key] = desc
                rows = m["shape"][0]
                entry = {"ptr": IntegerAttr(m["ptr"], 32), "desc": IntegerAttr(desc.index, 32),
                         "stride": _poly_attr(m["stride"], an),
                         "shape": ArrayAttr([_poly_attr(p or {}, an) for p in m["shape"]])}
                if rows is None:
                    entry["extent"] = IntegerAttr(1, 32)
                entries.append(DictionaryAttr(entry))
            coords = [_coordinate(p, an, load) for p in m["coords"]]
            new = DescLoadOp(descs[key], coords)
            load.parent_block().insert_op_before(new, load)
            if self.remarks:
                remark(load, f"ws-tma-load: a TMA load of argument {m['ptr']} "
                             f"({kernel.body.block.args[m['ptr']].name_hint or m['ptr']})")
            load.result.replace_all_uses_with(new.result)
            feeding = list(load.operands)
            load.detach()
            load.erase()
            _erase_dead(feeding)
        if not entries:
            if self.remarks:
                remark(kernel, "ws-tma-load: no pointer-tile load turned into a TMA load")
            return
        for o in list(kernel.body.block.ops):
            if isinstance(o, scf.ForOp):
                _drop_carried_pointers(o)
        kernel.attributes[TMA_LOADS_ATTR] = ArrayAttr(entries)
