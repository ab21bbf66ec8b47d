"""`ws-version-masks`: a boundary mask costs nothing on the tiles it does not cut (mask versioning).

A mask such as `offs_n < L` (keys past the sequence end) or `offs_m >= offs_n` (causal
attention) is built from index tiles: `tile.make_range`, `tile.splat` of scalars, integer
`arith.addi` / `subi` / `muli` by a constant, `tile.expand_dims` / `tile.broadcast`. The
smallest and largest element of such a tile are scalars, so whether the mask holds on the
whole tile is one scalar comparison. This pass gives each `arith.select` on such a mask
that comparison and an `scf.if`: a tile inside the bounds takes its value as it is, and
only a boundary tile evaluates the mask per element (FlashAttention-3 masks only the last
key block and the diagonal blocks of causal attention; written with one mask, the kernel
gets the same code):

    %offs = arith.addi %off_v, %cols : tensor<128xi32>        %hi = arith.addi %off, %c127 : i32
    %in = arith.cmpi slt, %offs, %L_v : tensor<128xi32>       %inside = arith.cmpi slt, %hi, %L : i32
    %inb = tile.broadcast %in2 : ... -> tensor<64x128xi1> ==> %s = scf.if %inside -> (tensor<64x128xf32>) {
    %s = arith.select %inb, %qk, %ninf : ...                    scf.yield %qk
                                                              } else {
                                                                %s0 = arith.select %inb, %qk, %ninf : ...
                                                                scf.yield %s0
                                                              }

Where the select's first operand is the constant and the second is not (the mask marks
what is outside), the test is that the mask is false on the whole tile. The
bounds are exact in i32 / i64 arithmetic: a tile whose index range wraps around is not
"inside" (the scalar test checks min <= max), and a comparison the bounds cannot decide
for the whole tile (equality, unsigned) keeps its per-element select. `ws-hopper` runs
this pass after `ws-lower-layouts`, where the partitions are fixed, with `remarks=false`; run
alone it says with a remark when a module has no such select.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith as xarith
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from wsdialects.arith import CmpiOp, splat_constant
from wsdialects.diagnostics import remark, warning
from wsdialects.transforms.partition import kernels

# An index tile as bounds: every element is base + k (wrapping like the kernel's own
# arithmetic) for some k in [lo, hi]; base is a sum of coef * scalar.
Terms = tuple[tuple[int, SSAValue], ...]
Bounds = tuple[Terms, int, int]
# A scalar i1 that is built (before the select) only when the select is versioned.
Cond = Callable[["_Builder"], SSAValue]

_SAME = ("tile.expand_dims", "tile.broadcast")
# cmpi predicate -> (the bound of the lhs, the bound of the rhs, the scalar predicate) that
# makes the comparison hold on every pair of elements.
_ALL_TRUE = {"slt": ("max", "min", "slt"), "sle": ("max", "min", "sle"),
             "sgt": ("min", "max", "sgt"), "sge": ("min", "max", "sge")}
_NEGATE = {"slt": "sge", "sle": "sgt", "sgt": "sle", "sge": "slt"}
_PRED_NAMES = {v: k for k, v in CmpiOp.PREDICATES.items()}


def _int_const(v: SSAValue) -> int | None:
    """The integer a scalar constant or a splat dense constant holds, else None."""
    c = splat_constant(v)
    return int(c) if isinstance(c, (int, bool)) and isinstance(_elem_type(v), IntegerType) else None


def _elem_type(v: SSAValue):
    return v.type.element_type if isinstance(v.type, TensorType) else v.type


def index_bounds(v: SSAValue) -> Bounds | None:
    """Bounds of the integer tile (or scalar) `v`, or None where they are not known."""
    c = _int_const(v)
    if c is not None:
        return (), c, c
    op = v.owner
    if not isinstance(v.type, TensorType):
        return (((1, v),), 0, 0) if isinstance(v.type, IntegerType) else None
    if not isinstance(op, Operation):
        return None  # a tile from a block argument: its elements are not known
    name = op.name
    if name == "tile.make_range":
        return (), op.start.value.data, op.end.value.data - 1
    if name == "tile.splat":
        return index_bounds(op.operands[0])
    if name in _SAME:
        return index_bounds(op.operands[0])
    if name in ("arith.addi", "arith.subi", "arith.muli"):
        x, y = index_bounds(op.operands[0]), index_bounds(op.operands[1])
        if x is None or y is None:
            return None
        (tx, lx, hx), (ty, ly, hy) = x, y
        if name == "arith.addi":
            return tx + ty, lx + ly, hx + hy
        if name == "arith.subi":
            return tx + tuple((-c, s) for c, s in ty), lx - hy, hx - ly
        for (t, lo, hi), (tc, c, c2) in ((x, y), (y, x)):  # times a constant
            if not tc and c == c2 and c != 0:
                scaled = tuple((k * c, s) for k, s in t)
                return (scaled, lo * c, hi * c) if c > 0 else (scaled, hi * c, lo * c)
    return None


class _Builder:
    """The scalar ops of one whole-tile test, with constants and sums made once each."""

    def __init__(self):
        self.ops: list[Operation] = []
        self.bases: dict[tuple[Terms, str], SSAValue] = {}
        self.made: dict[tuple[Terms, int, str], SSAValue] = {}  # constants and base + k

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, value: int, ty: IntegerType) -> SSAValue:
        key = ((), value, str(ty))
        if key not in self.made:
            c = self.add(xarith.ConstantOp.from_int_and_width(value, ty, truncate_bits=True))
            c.name_hint = f"c{value}" if value >= 0 else f"c_neg{-value}"
            self.made[key] = c
        return self.made[key]

    def named(self, v: SSAValue, name: str) -> SSAValue:
        if v.owner in self.ops and v.name_hint is None:
            v.name_hint = name
        return v

    def value(self, terms: Terms, k: int, ty: IntegerType) -> SSAValue:
        """base + k as a scalar of type `ty`, wrapping like the tile's elements."""
        acc: SSAValue | None = self.bases.get((terms, str(ty)))
        if acc is None:
            for coef, s in terms:
                x = s if coef == 1 else self.add(xarith.MuliOp(s, self.const(coef, ty)))
                acc = x if acc is None else self.add(xarith.AddiOp(acc, x))
            if acc is not None:
                self.bases[(terms, str(ty))] = acc
        if acc is None:
            return self.const(k, ty)
        if k == 0:
            return acc
        key = (terms, k, str(ty))
        if key not in self.made:
            self.made[key] = self.add(xarith.AddiOp(acc, self.const(k, ty)))
        return self.made[key]

    def cmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add(CmpiOp(a, b, pred))


def _elem(t) -> IntegerType | None:
    e = t.element_type if isinstance(t, TensorType) else t
    return e if isinstance(e, IntegerType) and e.width.data > 1 else None


def _compare_cond(op: Operation, want: bool) -> Cond | None:
    """The scalar test that `op` (an arith.cmpi on index tiles) is `want` on every element."""
    pred = _PRED_NAMES.get(op.predicate.value.data)
    if pred not in _ALL_TRUE:
        return None
    if not want:
        pred = _NEGATE[pred]
    ty = _elem(op.operands[0].type)
    sides = [index_bounds(x) for x in op.operands]
    if ty is None or None in sides:
        return None
    width = ty.width.data
    for _, lo, hi in sides:
        if hi - lo >= 2 ** (width - 1):
            return None
    bound_l, bound_r, spred = _ALL_TRUE[pred]

    def build(b: _Builder) -> SSAValue:
        conds = []
        ends = []
        for (terms, lo, hi), which in zip(sides, (bound_l, bound_r)):
            lo_v = b.named(b.value(terms, lo, ty), "first")
            hi_v = lo_v if hi == lo else b.named(b.value(terms, hi, ty), "last")
            if hi != lo:  # no wrap-around inside the tile: its first element <= its last
                conds.append(b.named(b.cmp("sle", lo_v, hi_v), "ordered"))
            ends.append(hi_v if which == "max" else lo_v)
        conds.append(b.cmp(spred, *ends))
        out = conds[0]
        for c in conds[1:]:
            out = b.add(xarith.AndIOp(out, c))
        return out

    return build


def uniform(mask: SSAValue, want: bool) -> Cond | None:
    """A scalar test that every element of the i1 tile `mask` is `want`, or None."""
    c = _int_const(mask)
    if c is not None:
        holds = bool(c & 1) == want
        return lambda b: b.const(1 if holds else 0, IntegerType(1))
    op = mask.owner
    if not isinstance(op, Operation):
        return None
    if op.name in _SAME:
        return uniform(op.operands[0], want)
    if op.name == "arith.cmpi":
        return _compare_cond(op, want)
    if op.name == "arith.xori" and _int_const(op.operands[1]) is not None and _int_const(op.operands[1]) & 1:
        return uniform(op.operands[0], not want)
    if op.name in ("arith.andi", "arith.ori"):
        # and: all true needs both, all false either one; or: the other way round
        both = (op.name == "arith.andi") == want
        parts = [uniform(x, want) for x in op.operands]
        if both and None in parts:
            return None
        parts = [p for p in parts if p is not None]
        if not parts:
            return None
        combine = xarith.AndIOp if both else xarith.OrIOp

        def build(b: _Builder) -> SSAValue:
            vals = [p(b) for p in parts]
            out = vals[0]
            for v in vals[1:]:
                out = b.add(combine(out, v))
            return out

        return build
    return None


def _is_constant(v: SSAValue) -> bool:
    return isinstance(v.owner, Operation) and v.owner.name == "arith.constant"


def _versioned(sel: Operation) -> bool:
    """`sel` is already the slow path of a whole-tile test (this pass ran before)."""
    guard = sel.parent_op()
    if not isinstance(guard, scf.IfOp) or sel.parent_block() is not guard.false_region.blocks[0]:
        return False
    fast = guard.true_region.blocks[0].last_op
    return isinstance(fast, scf.YieldOp) and fast.operands[0] in sel.operands[1:]


def version_select(sel: Operation) -> bool:
    """Give `sel` (an arith.select on a tile mask) a whole-tile test and an scf.if: the mask
    true on the whole tile takes the first operand (or, where the first operand is the
    constant and the second is not, false on the whole tile takes the second), else the
    select; False if the mask is not decidable per tile."""
    mask, on_true, on_false = sel.operands
    if not isinstance(mask.type, TensorType) or _versioned(sel):
        return False
    # One test: for the side that keeps data (a mask fills the tiles it cuts with a constant,
    # so the tile it does not cut is the common one); a second, nested test for the other
    # side would add a third source to every register's phi (ptxas spilled attention at 168).
    sides = [(True, on_true), (False, on_false)]
    if _is_constant(on_true) and not _is_constant(on_false):
        sides.reverse()
    for want, fast in sides:
        cond = uniform(mask, want)
        if cond is not None:
            break
    else:
        return False
    b = _Builder()
    test = cond(b)
    if test.name_hint is None:
        test.name_hint = "whole_tile"
    result = sel.results[0]
    guard = scf.IfOp(test, [result.type], Region(Block([scf.YieldOp(fast)])), Region(Block()))
    for o in [*b.ops, guard]:
        sel.parent_block().insert_op_before(o, sel)
    result.replace_all_uses_with(guard.results[0])
    guard.results[0].name_hint = result.name_hint
    sel.detach()
    guard.false_region.blocks[0].add_op(sel)
    guard.false_region.blocks[0].add_op(scf.YieldOp(result))
    return True


@dataclass(frozen=True)
class VersionMasksPass(ModulePass):
    """Branch each select on a tile-uniform index mask: interior tiles skip the per-element mask."""

    name = "ws-version-masks"
    remarks: bool = True  # say so when a module has no select to version (ws-hopper: False)

    def apply(self, ctx, op: ModuleOp) -> None:
        ks = kernels(op)
        if not ks and self.remarks:
            warning(op, "ws-version-masks: no tile.kernel function; nothing to do")
            return
        done = 0
        for sel in [o for o in op.walk() if o.name == "arith.select"]:
            done += version_select(sel)
        if not done and self.remarks:
            for k in ks[:1]:
                remark(k, "ws-version-masks: no arith.select on a mask of index tiles that a whole-tile test "
                          "decides; nothing versioned")
