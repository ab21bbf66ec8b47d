"""The symbolic offsets `ws-tma-load` reads a pointer-tile load by: integer tiles as affine
functions of the tile's indices whose coefficients are polynomials over scalar SSA values.

    %r = tile.make_range 0 to 64 : tensor<64xi32>          # 0 + 1 * i0
    %o = arith.addi (splat %om), %r : tensor<64xi32>       # om + i0
    %w = arith.remsi %o, (splat %M) : tensor<64xi32>       # om + i0, wrapped at M (valid while om + i0 < M)
    %e = tile.expand_dims %w, 1 : ... -> tensor<64x1xi32>  # om + i0 (axis 1 has coefficient 0)

A polynomial is {monomial (sorted atom numbers): coefficient}; an atom is a scalar SSA value
the analysis does not look into (a kernel argument, a program id, an induction variable,
the result of a division). `arith.extsi` / `arith.extui` of i32 offsets (Triton's i64 offset
arithmetic) are seen through: offsets are taken not to overflow, as the pointer form assumes.
An index taken modulo a uniform bound (Triton's tutorial matmul wraps its rows,
`(pid_m * BM + arange(BM)) % M`) is recorded as a wrap of its axis, (x, B): the index is
x + i where x + i < B, something else past B (tma_wrap.py proves those lanes unobserved).
"""

from __future__ import annotations

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, TensorType, i32
from xdsl.ir import BlockArgument, Operation, SSAValue

from wsdialects.arith import CmpiOp, splat_constant
from wsdialects.tile import AddPtrOp, BroadcastOp, ExpandDimsOp, MakeRangeOp, SplatOp
from wsdialects.transforms.tma_common import NoMatch

Poly = dict
_WIDEN = ("arith.extsi", "arith.extui")


class Left(Exception):
    """A load the pass leaves as it is, and why."""


def constant(v: SSAValue) -> int | float | None:
    """The one value of an `arith.constant` (scalar or splat tile), else None."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "arith.constant":
        val = o.properties.get("value")
        if val is None:
            val = o.attributes.get("value")
        if isinstance(val, (IntegerAttr, FloatAttr)):
            return val.value.data
    return splat_constant(v)


def key(p: Poly) -> tuple:
    return tuple(sorted(p.items()))


def add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return {k: v for k, v in out.items() if v}


def mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            k = tuple(sorted(ka + kb))
            out[k] = out.get(k, 0) + va * vb
    return {k: v for k, v in out.items() if v}


def const(c: int) -> Poly:
    return {(): c} if c else {}


def substitute_one(p: Poly, atom: int) -> Poly:
    """p with `atom` = 1."""
    out: Poly = {}
    for m, k in p.items():
        m2 = tuple(a for a in m if a != atom)
        out[m2] = out.get(m2, 0) + k
    return {k: v for k, v in out.items() if v}


class Aff:
    """An integer tile: value[i0, i1, ...] = scalar + sum over axes of axes[a] * i_a, where
    `wraps[a] = (x, B)` says axis a's index was taken modulo B (x + i_a, valid while < B)."""

    def __init__(self, scalar: Poly, axes: list[Poly], wraps: dict | None = None):
        self.scalar, self.axes, self.wraps = scalar, axes, dict(wraps or {})

    def combine(self, other: Aff, sign: int) -> Aff:
        wraps = dict(self.wraps)
        for a, w in other.wraps.items():
            if a in wraps and (key(wraps[a][0]), key(wraps[a][1])) != (key(w[0]), key(w[1])):
                raise NoMatch
            wraps[a] = w
        return Aff(add(self.scalar, other.scalar, sign), [add(x, y, sign) for x, y in zip(self.axes, other.axes)],
                   wraps)

    def uniform(self) -> bool:
        return not any(self.axes) and not self.wraps

    def substitute_one(self, atom: int) -> Aff:
        s = lambda p: substitute_one(p, atom)  # noqa: E731
        return Aff(s(self.scalar), [s(a) for a in self.axes], {a: (s(x), s(b)) for a, (x, b) in self.wraps.items()})


class Analysis:
    """Symbolic offsets, pointers and masks of one kernel."""

    def __init__(self, kernel: func.FuncOp):
        self.kernel = kernel
        self.atoms: list[SSAValue] = []
        self.number: dict[SSAValue, int] = {}
        self.known: dict[tuple, SSAValue] = {}  # a polynomial -> an i32 scalar of the kernel that computes it

    def atom(self, v: SSAValue) -> Poly:
        if v not in self.number:
            self.number[v] = len(self.atoms)
            self.atoms.append(v)
        return {(self.number[v],): 1}

    def scalar(self, v: SSAValue) -> Poly:
        p = self._scalar(v)
        if v.type == i32:
            self.known.setdefault(key(p), v)
        return p

    def _scalar(self, v: SSAValue) -> Poly:
        c = constant(v)
        if isinstance(c, int) and isinstance(v.type, IntegerType):
            return const(c)
        o = v.owner
        if isinstance(o, (arith.AddiOp, arith.SubiOp)):
            return add(self.scalar(o.lhs), self.scalar(o.rhs), 1 if isinstance(o, arith.AddiOp) else -1)
        if isinstance(o, arith.MuliOp):
            return mul(self.scalar(o.lhs), self.scalar(o.rhs))
        if isinstance(o, Operation) and o.name in _WIDEN:
            return self.scalar(o.operands[0])
        if isinstance(v, BlockArgument) and isinstance(loop := v.block.parent_op(), scf.ForOp) and v.index > 0:
            carried = self._carried_scalar(loop, v)
            if carried is not None:
                return carried
        return self.atom(v)

    def _carried_scalar(self, loop: scf.ForOp, v: BlockArgument) -> Poly | None:
        """An integer iter_arg `x = x + d` (d invariant): its start plus the iterations times d
        (Triton 3.6's block-pointer offsets advance so), else None."""
        j = v.index - 1
        step = loop.body.block.last_op.operands[j].owner
        if not isinstance(step, arith.AddiOp) or v not in step.operands:
            return None
        d = self.scalar(step.rhs if step.lhs is v else step.lhs)
        if not self.invariant(d, loop):
            return None
        moved = self.iterations_times(loop, d)
        return None if moved is None else add(self.scalar(loop.iter_args[j]), moved)

    def iterations_times(self, loop: scf.ForOp, d: Poly) -> Poly | None:
        """(iterations done before this one) * d, from the induction variable: (iv - lb) / step * d
        where lb and step are constants and step divides d's coefficients; else None."""
        lb, st = constant(loop.lb), constant(loop.step)
        if not isinstance(lb, int) or not isinstance(st, int) or st <= 0 or any(k % st for k in d.values()):
            return None
        done = add(self.atom(loop.body.block.args[0]), const(lb), -1)
        return mul(done, {m: k // st for m, k in d.items()})

    def tile(self, v: SSAValue) -> Aff:
        t = v.type
        if not isinstance(t, TensorType):
            raise NoMatch
        rank, o = len(t.get_shape()), v.owner
        c = constant(v)
        if isinstance(c, int):
            return Aff(const(c), [{}] * rank)
        if isinstance(o, SplatOp):
            return Aff(self.scalar(o.operands[0]), [{}] * rank)
        if isinstance(o, MakeRangeOp):
            return Aff(const(o.start.value.data), [const(1)])
        if isinstance(o, Operation) and o.name in _WIDEN:
            return self.tile(o.operands[0])
        if isinstance(o, ExpandDimsOp):
            x, ax = self.tile(o.operands[0]), o.axis.value.data
            axes = list(x.axes)
            axes.insert(ax, {})
            return Aff(x.scalar, axes, {a + (a >= ax): w for a, w in x.wraps.items()})
        if isinstance(o, BroadcastOp):
            x = self.tile(o.operands[0])
            src = o.operands[0].type.get_shape()
            if any(src[a] == 1 for a in x.wraps):
                raise NoMatch
            return Aff(x.scalar, [{} if n == 1 else a for n, a in zip(src, x.axes)], x.wraps)
        if isinstance(o, (arith.AddiOp, arith.SubiOp)):
            return self.tile(o.lhs).combine(self.tile(o.rhs), 1 if isinstance(o, arith.AddiOp) else -1)
        if isinstance(o, arith.MuliOp):
            x, y = self.tile(o.lhs), self.tile(o.rhs)
            if not x.uniform():
                x, y = y, x
            if not x.uniform():
                raise NoMatch
            return Aff(mul(x.scalar, y.scalar), [mul(x.scalar, a) for a in y.axes], y.wraps)
        if isinstance(o, (arith.RemSIOp, arith.RemUIOp)):
            x, b = self.tile(o.lhs), self.tile(o.rhs)
            moving = [a for a, p in enumerate(x.axes) if p]
            if not b.uniform() or x.wraps or len(moving) != 1 or x.axes[moving[0]] != const(1):
                raise NoMatch
            return Aff(x.scalar, x.axes, {moving[0]: (x.scalar, b.scalar)})
        raise NoMatch

    def pointer(self, v: SSAValue) -> tuple[int, Aff]:
        """(the kernel argument the pointers start from, their offsets in elements)."""
        o = v.owner
        if isinstance(o, SplatOp):
            p, start = o.operands[0], {}
            while isinstance(p.owner, AddPtrOp) and not isinstance(p.type, TensorType):  # a scalar `base + off`
                start = add(start, self.scalar(p.owner.operands[1]))
                p = p.owner.operands[0]
            if not (isinstance(p, BlockArgument) and p.block is self.kernel.body.block):
                raise Left("its pointers do not start from a kernel argument")
            return p.index, Aff(start, [{}] * len(v.type.get_shape()))
        if isinstance(o, BroadcastOp):  # `c + r[:, None] * S + col[None, :]` adds to a 128x1 pointer tile first
            base, off = self.pointer(o.operands[0])
            if off.wraps:
                raise Left("its pointers wrap an axis they broadcast")
            src = o.operands[0].type.get_shape()
            return base, Aff(off.scalar, [{} if n == 1 else a for n, a in zip(src, off.axes)])
        if isinstance(o, AddPtrOp):
            base, off = self.pointer(o.operands[0])
            try:
                return base, off.combine(self.tile(o.operands[1]), 1)
            except NoMatch:
                raise Left("its offsets are not affine in the tile's indices") from None
        if isinstance(v, BlockArgument) and isinstance(loop := v.block.parent_op(), scf.ForOp) and v.index > 0:
            return self.carried(loop, v)
        raise Left("its pointers are not a splat of an argument plus offsets")

    def carried(self, loop: scf.ForOp, v: BlockArgument) -> tuple[int, Aff]:
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
        moved = self.iterations_times(loop, d.scalar)
        if moved is None:
            raise Left("its loop-carried pointers advance in a loop whose start or step is not a constant dividing "
                       "the advance")
        base, start = self.pointer(loop.iter_args[j])
        if not all(self.invariant(x, loop) and self.invariant(b, loop) for x, b in start.wraps.values()):
            raise Left("its offsets wrap at a bound that changes in the loop")
        return base, Aff(add(start.scalar, moved), start.axes, start.wraps)

    def invariant(self, p: Poly, loop: Operation) -> bool:
        """Whether no atom of p is defined inside `loop`."""
        return all(not loop.is_ancestor(self.atoms[a].owner if isinstance(self.atoms[a].owner, Operation)
                                        else self.atoms[a].owner.parent_op()) for m in p for a in m)

    def of_arguments(self, p: Poly) -> bool:
        return all(isinstance(self.atoms[a], BlockArgument) and self.atoms[a].block is self.kernel.body.block
                   for m in p for a in m)

    def argument_atom(self, p: Poly) -> int | None:
        """The atom of p when p is one kernel argument (coefficient 1), else None."""
        if len(p) != 1 or list(p.values()) != [1] or len(m := next(iter(p))) != 1 or not self.of_arguments(p):
            return None
        return m[0]

    def conjuncts(self, mask: SSAValue, rank: int) -> list:
        """The bounds tests the mask is a conjunction of, as (axis, B, cmpi, lower): `i_axis < B`,
        or with `lower` `i_axis >= B` (a block pointer's boundary check tests both); every other
        conjunct as (None, None, value, False). Broadcasts and expand_dims of a conjunct map its
        axes onto the mask's."""
        out: list = []
        stack = [(mask, list(range(rank)))]
        while stack:
            v, axes = stack.pop()
            o = v.owner
            if isinstance(o, BroadcastOp):
                stack.append((o.operands[0], axes))
            elif isinstance(o, ExpandDimsOp):
                stack.append((o.operands[0], [a for k, a in enumerate(axes) if k != o.axis.value.data]))
            elif isinstance(o, arith.AndIOp):
                stack += [(o.lhs, axes), (o.rhs, axes)]
            elif isinstance(o, CmpiOp) and o.predicate.value.data in (2, 3, 4, 5):  # slt, sle, sgt, sge
                out.append(self._bounds_test(o, axes))
            else:
                out.append((None, None, v, False))
        return out

    def _bounds_test(self, o: CmpiOp, axes: list[int]) -> tuple:
        pred = o.predicate.value.data
        try:
            lhs, rhs = self.tile(o.lhs), self.tile(o.rhs)
        except NoMatch:
            return None, None, o.result, False
        if lhs.wraps or rhs.wraps:
            return None, None, o.result, False
        e = lhs.combine(rhs, -1) if pred in (2, 3) else rhs.combine(lhs, -1)  # e < 0 (or <= 0)
        if pred in (3, 5):
            e = Aff(add(e.scalar, const(-1)), e.axes)
        moving = [a for a, c in enumerate(e.axes) if c]
        if len(moving) != 1 or e.axes[moving[0]] not in (const(1), const(-1)):
            return None, None, o.result, False
        if e.axes[moving[0]] == const(-1):  # s - i < 0: i >= s + 1
            return axes[moving[0]], add(e.scalar, const(1)), o, True
        return axes[moving[0]], add({}, e.scalar, -1), o, False

    def bounds(self, mask: SSAValue, rank: int) -> tuple[list[Poly | None], list[Poly | None]]:
        """Per axis, B with `i_axis < B` (the mask's bounds tests), None where unbounded, and
        per axis L with `i_axis >= L`, None where not tested; Left where the mask is anything else."""
        out: list[Poly | None] = [None] * rank
        low: list[Poly | None] = [None] * rank
        for axis, b, o, lower in self.conjuncts(mask, rank):
            if axis is None:
                if isinstance(o.owner, CmpiOp):
                    pred = o.owner.predicate.value.data
                    if pred in (2, 3, 4, 5):
                        raise Left("its mask is not a bounds test (index < bound along one axis)")
                    raise Left(f"its mask is not a bounds test (cmpi predicate {pred})")
                name = o.owner.name if isinstance(o.owner, Operation) else o
                raise Left(f"its mask is not a bounds test ('{name}')")
            into = low if lower else out
            if into[axis] is not None:
                raise Left(f"its mask bounds axis {axis} twice {'from below' if lower else 'from above'}")
            into[axis] = b
        return out, low

    def non_negative(self, p: Poly) -> bool:
        """Whether p is >= 0 for sure: non-negative coefficients over program ids and induction
        variables of loops that count up from a non-negative constant."""
        from wsdialects.tile import ProgramIdOp

        def atom_ok(a: int) -> bool:
            v = self.atoms[a]
            if isinstance(v.owner, ProgramIdOp):
                return True
            if isinstance(v, BlockArgument) and v.index == 0 and isinstance(loop := v.block.parent_op(), scf.ForOp):
                lb, st = constant(loop.lb), constant(loop.step)
                return isinstance(lb, int) and lb >= 0 and isinstance(st, int) and st > 0
            return False

        return all(k > 0 and all(atom_ok(a) for a in m) for m, k in p.items())


def dominates(v: SSAValue, at: Operation) -> bool:
    """Whether `v` is defined where `at` can use it."""
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op()
        return owner is not None and owner.is_ancestor(at)
    cur: Operation | None = at
    while cur is not None and cur.parent_block() is not v.owner.parent_block():
        cur = cur.parent_op()
    return cur is not None and cur is not v.owner and v.owner.is_before_in_block(cur)


def materialize(p: Poly, an: Analysis, before: Operation) -> SSAValue:
    """An i32 scalar computing p at `before`: one the kernel has (`an.known`), else i32 ops
    inserted before `before`."""
    known = an.known.get(key(p))
    if known is not None and dominates(known, before):
        return known
    block = before.parent_block()
    new: list[Operation] = []

    def number(k: int) -> SSAValue:
        new.append(c := arith.ConstantOp(IntegerAttr(k, 32)))
        return c.result

    def as_i32(v: SSAValue) -> SSAValue:  # an i64 argument or offset: coordinates are i32
        return v if v.type == i32 else emit(new, arith.TruncIOp(v, i32))

    total = None
    for m, k in sorted(p.items()):
        term = None
        for a in m:
            v = as_i32(an.atoms[a])
            term = v if term is None else emit(new, arith.MuliOp(term, v))
        if term is None:
            term = number(k)
        elif k != 1:
            term = emit(new, arith.MuliOp(term, number(k)))
        total = term if total is None else emit(new, arith.AddiOp(total, term))
    if total is None:
        total = number(0)
    block.insert_ops_before(new, before)
    return total


def emit(new: list, o: Operation) -> SSAValue:
    """Append `o` to `new`; its result."""
    new.append(o)
    return o.results[0]
