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

The analysis (tma_affine.py) evaluates the offsets symbolically: each integer tile is a
polynomial over scalar SSA values (kernel arguments, program ids, the induction variable,
anything else opaque) plus one such coefficient per axis (make_range, splat, expand_dims,
broadcast, addi, subi, muli; extsi / extui of i32 offsets are seen through, so Triton's i64
offset arithmetic reads the same). A load converts when the offsets are `base + S * i + j`
plus a scalar (S a kernel argument), the scalar splits into `r * S + c`, the mask is absent or
an `andi` of bounds tests `index < bound` (slt / sle / sgt / sge) whose bounds, moved to the
tensor's origin, are polynomials of kernel arguments (`rows < M` gives R = M;
`cols < K - k * BK` with c = k * BK gives C = K), and `other` is absent or +0. An unmasked row
axis reads as far as the tensor goes; an unmasked column axis must be a constant range.
Coordinates are taken to be non-negative, as the pointer form's own bounds tests assume; a
lower test `index >= L` (a block pointer's boundary check tests `>= 0` too) is accepted where it
is TMA's own (L the tensor's start) or always true (L <= 0 for a non-negative index).

Block pointers, as Triton rewrites them, start from a per-program scalar offset of the base,
`Q + off_z * stride_qz + off_h * stride_qh` (a batch and a head). The descriptor covers the
whole tensor as rows of the row stride S (the heads are rows of it), and such a term becomes a
row offset the kernel computes, `off_z * (stride_qz / S)`: exact where S divides each outer
factor, which the contract records (`multiples`) and the launch checks, refusing a tensor that
breaks it with an error naming the strides (a copy cannot help: the kernel's strides are the
user's). Contiguous tensors, and any whose outer strides are multiples of the row stride,
qualify. A 2-D view keeps the `!tile.desc` box and the producer as they are; the price is that
such a load may not bound its rows (a boundary check on dim 0 tests one head's rows, which the
whole tensor's view cannot), which the remark says.

A tile whose rows are contiguous instead (a K^T block pointer with order (0, 1), `offs_d[:,
None] * stride_kk + offs_n[None, :] * stride_kn` with stride_kk = 1) is loaded as the box of
its transpose, rows along the tile's columns, and `tile.trans`-ed back: the form wgmma reads
as a K-major B operand (examples/kernels/flash_attention.mlir). Where both strides are
arguments, the one passed later is taken to be 1 (kernels take a tensor's strides in order,
`*x.stride()`), and the `unit` contract below keeps any other launch correct.

The column stride is 1, or a kernel argument (`offs_k[None, :] * stride_ak`): Triton's JIT
turns an integer argument equal to 1 into a constant, but a kernel compiled for every value
(our frontend's) keeps it an argument. The pass then compiles the load for that argument
being 1, which the contract records (`unit`); a launch where it is not 1 builds the
descriptor over a contiguous copy of the view, as for a misaligned one (below), so the
kernel reads the same values at any stride.

Triton's tutorial matmul wraps its rows instead of masking them,
`offs_am = (pid_m * BM + arange(BM)) % M`: rows past M read rows 0, 1, ... again. A load whose
index along an axis is `(x + i) % B` converts with B as that axis's bound (TMA reads zeros past
B instead) when tma_wrap.py proves that those lanes are seen only in lanes a store's mask
leaves unwritten (`offs_cm[:, None] < M`: the same index, the same bound, through the dot's
rows or columns and elementwise ops); where it cannot, the load stays, and the remark says why.
The kernel gets one trailing `!tile.desc` argument per distinct view and records the launch
contract on the kernel:

    ws.tma_loads = [{ptr = 0, desc = 12, shape = [[[1, 3]], [[1, 5]]], stride = [[1, 6]], unit = 7}]

(argument indices; each bound and the row stride is a polynomial of arguments, a list of
monomials `[coefficient, argument, ...]`; `extent` marks a row count read from the tensor;
`unit` the argument taken to be the innermost stride, 1 for the kernel; `multiples` the
products of arguments that are per-program row offsets, which the row stride must divide).

Where TMA cannot take the view at launch (base or row stride not a multiple of 16 bytes), the
pointer form cannot be the fallback on Hopper: the loop of a GEMM with pointer loads has its
B operand in registers, which wgmma cannot read, so a pointer copy of the loop behind a flag
(ws-tma-store's way) would not lower. The contract guarantees TMA instead: the runtime (and
the interpreter) builds the descriptor over the argument's view where TMA can take it, and
over an aligned contiguous copy of the view (row stride padded to 16 bytes) where it cannot
(or where the `unit` argument is not 1), which gives
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
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, IntegerType, ModuleOp, TensorType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.tile import AddPtrOp, DescLoadOp, DescType, LoadOp, PtrType, TransOp
from wsdialects.transforms.partition import kernels, remark
from wsdialects.transforms.tma_affine import (
    Aff,
    Analysis,
    Left,
    Poly,
    add,
    const,
    constant,
    dominates,
    emit,
    key,
    materialize,
)
from wsdialects.transforms.tma_common import add_kernel_arg, box_problem, erase_dead, poly_attr
from wsdialects.transforms.tma_common import written_arguments as _written_arguments
from wsdialects.transforms.tma_wrap import unobserved

TMA_LOADS_ATTR = "ws.tma_loads"
_AXIS = ("rows", "columns")


def _is_zero(v: SSAValue | None) -> bool:
    if v is None:
        return True
    c = constant(v)
    return c is not None and c == 0 and math.copysign(1.0, c) > 0


def candidate_loads(kernel: func.FuncOp) -> list[LoadOp]:
    """Tile loads the producer could take: at the kernel's top level or in a top-level loop."""
    out = []
    for o in kernel.body.block.ops:
        inner = o.body.block.ops if isinstance(o, scf.ForOp) else [o]
        out += [x for x in inner if isinstance(x, LoadOp) and isinstance(x.result.type, TensorType)]
    return out


def _orientation(off: Aff, an: Analysis) -> tuple[int, int | None, int | None]:
    """(the axis of the tile whose stride is 1, the kernel argument taken to be that stride or
    None where it is the constant 1, the other stride's argument where that was a guess, else
    None). Where both strides are arguments, the one passed later is taken (Triton kernels take
    a tensor's strides in order, `*x.stride()`, the innermost last); the `unit` contract keeps a
    wrong guess correct, at the cost of a contiguous copy per launch, which the remark says."""
    a0, a1 = off.axes
    u0, u1 = an.argument_atom(a0), an.argument_atom(a1)
    if a1 == const(1):
        return 1, None, None
    if a0 == const(1) and u1 is not None:
        return 0, None, None
    if u0 is not None and u1 is not None:
        return (0, u0, u1) if an.atoms[u0].index > an.atoms[u1].index else (1, u1, u0)
    if u1 is not None:
        return 1, u1, None
    raise Left("its innermost stride is not 1")


def _transposed(off: Aff) -> Aff:
    return Aff(off.scalar, off.axes[::-1], {1 - a: w for a, w in off.wraps.items()})


def match(load: LoadOp, an: Analysis, written: set[int]) -> dict:
    """The view and coordinates of a load (see the module), else Left."""
    t = load.result.type
    shape = t.get_shape()
    if len(shape) != 2:
        raise Left(f"a {len(shape)}-D tile (a !tile.desc box is 2-D)")
    if not _is_zero(load.other):
        raise Left("its `other` is not 0 (TMA fills out-of-bounds elements with zeros)")
    base, off = an.pointer(load.ptr)
    if base in written:
        raise Left("the kernel also writes through this argument")
    inner, unit, guessed_over = _orientation(off, an)
    flip = inner == 0  # a tile whose rows are contiguous: TMA loads its transpose
    box = TensorType(t.element_type, shape[::-1] if flip else shape)
    if (why := box_problem(box, "load")) is not None:
        raise Left(why)
    if flip:
        off = _transposed(off)
    wraps = off.wraps  # the wraps as the kernel computes them (the stores' masks do)
    if unit is not None:
        off = off.substitute_one(unit)  # the launch contract: the argument is 1 (else a contiguous copy)
    stride = off.axes[0]
    s = an.argument_atom(stride)
    if s is None:
        raise Left("its row stride is not a kernel argument")
    r: Poly = {}
    c: Poly = {}
    outer: list = []  # per-program offsets in elements: (coefficient, other atoms, argument atoms)
    for m, k in off.scalar.items():
        if s in m:
            rest = list(m)
            rest.remove(s)
            r[tuple(rest)] = k
        elif args := tuple(a for a in m if an.of_arguments({(a,): 1})):
            outer.append((k, tuple(a for a in m if a not in args), args))
        else:
            c[m] = k
    coords = (r, c)
    bounds, lows = an.bounds(load.mask, 2) if load.mask is not None else ([None, None], [None, None])
    if flip:
        bounds, lows = bounds[::-1], lows[::-1]
    if outer and (bounds[0] is not None or 0 in off.wraps):
        raise Left("its rows are bounded and its pointer has a per-program offset (such as a batch or head "
                   "offset), which the TMA view of the whole tensor cannot bound")
    for axis, low in enumerate(lows):
        if low is None:
            continue
        at = add(coords[axis], low)  # the tested lower bound, where the tensor starts at 0
        if at and not (an.non_negative(coords[axis]) and an.non_negative(add({}, low, -1))):
            raise Left(f"its {_AXIS[axis]} are bounded from below at another index than 0")
        if outer and axis == 0 and not an.non_negative(coords[0]):
            raise Left("its rows are bounded from below and its pointer has a per-program offset, which the TMA "
                       "view of the whole tensor cannot bound")
    for axis, (x, b) in off.wraps.items():
        if key(x) != key(coords[axis]):
            raise Left(f"its {_AXIS[axis]} wrap (an index modulo a bound) around another start than the tile's")
        rel = add(b, x, -1)
        if bounds[axis] is not None and key(bounds[axis]) != key(rel):
            raise Left(f"its {_AXIS[axis]} wrap at one bound and are masked at another")
        why = unobserved(an, load.result, 1 - axis if flip else axis, *wraps[axis])
        if why is not None:
            raise Left(f"its {_AXIS[axis]} wrap (an index taken modulo a bound), which TMA would read as zeros, "
                       f"and the pass cannot prove that only masked-off lanes of stores see them: {why}")
        bounds[axis] = rel
    shape_polys: list[Poly | None] = []
    for axis, (coord, b) in enumerate(zip(coords, bounds)):
        if b is None:
            if axis == 0:
                shape_polys.append(None)  # as many rows as the tensor holds
                continue
            if any(m for m in coord):
                raise Left("its columns are unmasked and do not start at a constant (an offset of the pointer that is "
                           "not a multiple of the row stride starts them elsewhere)")
            b = const(box.get_shape()[1])
        total = add(coord, b)
        if not an.of_arguments(total):
            raise Left(f"its bound on axis {axis} is not a function of the kernel's arguments")
        shape_polys.append(total)
    return {"ptr": base, "stride": stride, "shape": shape_polys, "coords": coords, "unit": unit,
            "guessed_over": guessed_over,
            "outer": outer, "box": box, "transposed": flip}


def _coordinate(p: Poly, an: Analysis, load: Operation) -> SSAValue:
    """A scalar computing p at `load`: one the kernel has, else ops computing the part that does
    not change in the load's loop before the loop, and the rest before the load."""
    known = an.known.get(key(p))
    if known is not None and dominates(known, load):
        return known
    loop = load.parent_op()
    if not isinstance(loop, scf.ForOp):
        return materialize(p, an, load)
    fixed = {m: k for m, k in p.items() if an.invariant({m: k}, loop)}
    moving = {m: k for m, k in p.items() if m not in fixed}
    if not fixed or not moving:
        return materialize(p, an, load if moving else loop)
    start = an.known.get(key(fixed))
    if start is None or not dominates(start, loop):
        start = materialize(fixed, an, loop)
    rest = materialize(moving, an, load)
    total = arith.AddiOp(start, rest)
    load.parent_block().insert_op_before(total, load)
    return total.result


def _quotient(kernel: func.FuncOp, an: Analysis, args: tuple, stride: Poly) -> int:
    """The atom of `prod(args) / stride` (i32 ops at the kernel's start): a per-program offset's
    factor in rows of the view, exact by the launch contract (`multiples`)."""
    new: list[Operation] = []

    def as_i32(a: int) -> SSAValue:
        v = an.atoms[a]
        return v if v.type == i32 else emit(new, arith.TruncIOp(v, i32))

    num = None
    for a in args:
        num = as_i32(a) if num is None else emit(new, arith.MuliOp(num, as_i32(a)))
    (s,) = next(iter(stride))
    q = emit(new, arith.DivSIOp(num, as_i32(s)))
    kernel.body.block.insert_ops_before(new, kernel.body.block.first_op)
    return next(iter(an.atom(q)))[0]


def _drop_carried_pointers(loop: scf.ForOp) -> scf.ForOp:
    """`loop` without the pointer iter_args (and the integer offsets, Triton 3.6's block-pointer
    form) that only advance themselves now."""
    body = loop.body.block
    yld = body.last_op
    drop = []
    for j, arg in enumerate(body.args[1:]):
        nxt = yld.operands[j]
        if isinstance(arg.type, TensorType) and isinstance(arg.type.element_type, PtrType):
            advances = isinstance(nxt.owner, AddPtrOp) and nxt.owner.operands[0] is arg
        else:
            advances = isinstance(arg.type, IntegerType) and isinstance(nxt.owner, arith.AddiOp) \
                and arg in nxt.owner.operands
        if advances and not loop.results[j].uses and len(list(nxt.uses)) == 1 and len(list(arg.uses)) == 1:
            drop.append(j)
    if not drop:
        return loop
    keep = [j for j in range(len(loop.iter_args)) if j not in drop]
    new_yield = scf.YieldOp(*[yld.operands[j] for j in keep])
    body.insert_op_before(new_yield, yld)
    steps = [yld.operands[j] for j in drop]
    yld.detach()
    yld.erase()
    erase_dead(steps)
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
    erase_dead(inits)
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
        an = Analysis(kernel)
        written = _written_arguments(kernel)
        descs: dict = {}
        quotients: dict = {}
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
            box = m["box"]
            multiples = [poly_attr({args: 1}, an.atoms) for args in sorted({a for _, _, a in m["outer"]})]
            view = (m["ptr"], m["unit"], str(sorted(m["stride"].items())),
                    str([sorted(p.items()) if p else None for p in m["shape"]]), str(box), str(multiples))
            if view not in descs:
                name = kernel.body.block.args[m["ptr"]].name_hint or f"arg{m['ptr']}"
                same = sum(1 for k in descs if k[0] == m["ptr"])
                desc = add_kernel_arg(kernel, DescType(box), f"{name}_tma{same or ''}")
                descs[view] = desc
                rows = m["shape"][0]
                entry = {"ptr": IntegerAttr(m["ptr"], 32), "desc": IntegerAttr(desc.index, 32),
                         "stride": poly_attr(m["stride"], an.atoms),
                         "shape": ArrayAttr([poly_attr(p or {}, an.atoms) for p in m["shape"]])}
                if rows is None:
                    entry["extent"] = IntegerAttr(1, 32)
                if m["unit"] is not None:
                    entry["unit"] = IntegerAttr(an.atoms[m["unit"]].index, 32)
                if multiples:
                    entry["multiples"] = ArrayAttr(multiples)
                entries.append(DictionaryAttr(entry))
            rows_at = dict(m["coords"][0])
            for k, others, args in m["outer"]:  # a per-program offset, in rows of the view
                q = quotients.setdefault((args, key(m["stride"])), _quotient(kernel, an, args, m["stride"]))
                mono = tuple(sorted((*others, q)))
                rows_at[mono] = rows_at.get(mono, 0) + k
            coords = [_coordinate(p, an, load) for p in ({k: v for k, v in rows_at.items() if v}, m["coords"][1])]
            new = DescLoadOp(descs[view], coords)
            load.parent_block().insert_op_before(new, load)
            if m["transposed"]:
                new = TransOp(new.result, load.result.type, (1, 0))
                load.parent_block().insert_op_before(new, load)
            if self.remarks:
                def name(a):
                    return f"%{an.atoms[a].name_hint or an.atoms[a].index}"
                guess = "" if m["guessed_over"] is None else (
                    f", assumed of the stride arguments {name(m['guessed_over'])} and {name(m['unit'])} as "
                    "the one passed later")
                unit = "" if m["unit"] is None else (
                    f"; its {'row' if m['transposed'] else 'column'} stride {name(m['unit'])} is 1 by "
                    f"the launch contract{guess} (a launch where it is not reads a contiguous copy)")
                how = " of the transposed box (its rows are contiguous)" if m["transposed"] else ""
                outer = "" if not m["outer"] else (
                    "; its per-program offset is a row offset: the launch checks that the row stride divides "
                    + ", ".join("*".join(f"%{an.atoms[a].name_hint or an.atoms[a].index}" for a in args)
                                for args in sorted({a for _, _, a in m["outer"]})))
                remark(load, f"ws-tma-load: a TMA load{how} of argument {m['ptr']} "
                             f"({kernel.body.block.args[m['ptr']].name_hint or m['ptr']}){unit}{outer}")
            load.result.replace_all_uses_with(new.result)
            feeding = list(load.operands)
            load.detach()
            load.erase()
            erase_dead(feeding)
        if not entries:
            if self.remarks:
                remark(kernel, "ws-tma-load: no pointer-tile load turned into a TMA load")
            return
        for o in list(kernel.body.block.ops):
            if isinstance(o, scf.ForOp):
                _drop_carried_pointers(o)
        kernel.attributes[TMA_LOADS_ATTR] = ArrayAttr(entries)
