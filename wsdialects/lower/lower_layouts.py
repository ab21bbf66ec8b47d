"""`ws-lower-layouts`: tiles -> threads. Every tile of a warp-specialized kernel gets
an explicit layout (`wsdialects/layout.py`), the encoding of its tensor type, that
says which thread (or which shared-memory byte) holds each element.

In a `nvgpu.wg.branch` of G warp groups: the results of wgmma (and everything computed
elementwise from them, the loop-carried accumulators, the values a wait retires) are in
the accumulator fragment `#layout.wgmma<warp_groups = G>`; aref slots (`nvgpu.smem.view`)
are `#layout.shared` with the swizzle of their row bytes; a reduction along the columns
gives a row slice `#layout.slice<dim = 1, ...>`; `tile.trans` permutes a layout; a
`tile.reshape` that only inserts or removes dims of size 1 slices (or un-slices) it, and
`tile.join` / `tile.split` add (remove) a minor dim of 2 held in two registers of one thread,
`#layout.pair<parent = ...>` (other reshapes move elements between threads: a located
error). Values
computed from scalars alone (index ranges, splats, pointer tiles, masks, pointer loads)
take the layout of their use, and are copied when two uses need two layouts.

    %d = nvgpu.wgmma.mma_async %a, %bt, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
  ==>
    %d = nvgpu.wgmma.mma_async %a, %bt, %acc
           : tensor<128x64xf16, #layout.shared<swizzle = 128, order = [1, 0]>>,
             tensor<64x256xf16, #layout.shared<swizzle = 128, order = [0, 1]>>
          -> tensor<128x256xf32, #layout.wgmma<warp_groups = 2>>

The A operand of a dot that lives in registers (attention's P in P·V) is in the
accumulator fragment, which is wgmma's register-A fragment for 16-bit elements; one in
any other layout (a transposed accumulator, say) is rejected. An 8-bit one (an fp8 P)
is converted from the accumulator fragment into wgmma's 8-bit A fragment by an
`nvgpu.convert_layout` before the dot's wgmma group (FlashAttention-3's byte permutes):

    %p8_frag = nvgpu.convert_layout %p8 : tensor<128x128xf8E4M3FN, #layout.wgmma<warp_groups = 2>>
                 -> tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>>>

A tile in shared memory that is read
element by element (not by wgmma) is loaded into registers first (`nvgpu.smem.load`); an
8-bit one read only to be stored into shared memory again (the transposed copy of an fp8 V,
by the producer or by ws-stage-operands' consumers) is loaded as `ldmatrix.trans` leaves it,
`#layout.transpose_copy` (16-byte rows on both sides, no bank conflicts), or where the tile
does not fit its 32 x 16 units in 4 x 4 blocks per thread, `#layout.blocked` (32 bits at a
time on both sides). A tile that would need two register layouts (a layout conversion)
or that does not fit its layout is rejected with a located error. The pass changes no value: the interpreter runs the result as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from wsdialects.diagnostics import WsError, error_at
from wsdialects.layout import (
    INTERLEAVE,
    BlockedLayout,
    Layout,
    OperandALayout,
    PairLayout,
    PermuteLayout,
    SharedLayout,
    SliceLayout,
    WgmmaLayout,
    layout_of,
    slot_swizzle,
    with_layout,
)
from wsdialects.lower.key_order import FP8_KEYS, interleaved_b, interleaved_buffers
from wsdialects.lower.llvm.transpose_copy import copy_layout_for
from wsdialects.lower.llvm.types import nbytes
from wsdialects.nvgpu import BranchOp, ConvertLayoutOp, SmemLoadOp

# Ops whose tile result is computed from their operands element by element (a value
# built from scalars through these alone can be evaluated in any layout).
FREE_OPS = ("arith.", "math.", "tile.splat", "tile.make_range", "tile.expand_dims", "tile.broadcast",
            "tile.addptr", "tile.trans", "tile.load", "tile.reshape", "tile.join")
DOTS = ("tile.dot", "mma.async_dot", "nvgpu.wgmma.mma_async")
WAITS = ("mma.wait", "nvgpu.wgmma.wait_group")
# Ops whose pointer, value and mask tiles (and result, for an atomic) are one per element: one layout.
STORE_GROUPS = ("tile.store", "tile.atomic_add")
WGMMA_M, MAX_N = 64, 256


def is_tile(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType)


def is_free(v: SSAValue, memo: dict[SSAValue, bool]) -> bool:
    """`v` is computed from scalars by per-element ops alone."""
    if not is_tile(v):
        return True
    if v in memo:
        return memo[v]
    memo[v] = False
    o = v.owner
    ok = (isinstance(o, Operation) and not o.regions and o.name.startswith(FREE_OPS)
          and all(is_free(x, memo) for x in o.operands))
    memo[v] = ok
    return ok


# ----------------------------------------------------------------------------- layout algebra

def shared_for(t: TensorType) -> SharedLayout | None:
    """The layout TMA gives a row-major slot tile (None: its rows cannot be swizzled); rows
    wider than the swizzle are column blocks (`wsdialects.layout.column_blocks`); a 1-D
    slot tile is a plain array."""
    shape = t.get_shape()
    if len(shape) == 1:  # a row vector put through an aref (a softmax's row max, say): not swizzled
        return SharedLayout(0, (0,))
    if len(shape) != 2:
        return None
    swz = slot_swizzle(shape[1] * nbytes(t.element_type))
    return SharedLayout(swz, (1, 0)) if swz else None


def permuted(perm: list[int], src: Layout) -> Layout:
    """The layout of `tile.trans` by `perm` of a tile in `src`."""
    if isinstance(src, SharedLayout):
        return SharedLayout(src.swizzle.data, [perm.index(d) for d in src.perm()], src.interleave.data)
    if isinstance(src, PermuteLayout):
        inner = src.perm()
        composed = [inner[p] for p in perm]
        return src.parent if composed == sorted(composed) else PermuteLayout(composed, src.parent)
    if perm == sorted(perm):
        return src
    return PermuteLayout(perm, src)


def unit_dims(src: list[int], res: list[int]) -> tuple[list[int], list[int]] | None:
    """(dims of `src` removed, dims of `res` inserted) when a reshape of `src` to `res` only
    removes and inserts dims of size 1 (the other dims kept in order); None otherwise."""
    if [n for n in src if n != 1] != [n for n in res if n != 1]:
        return None
    return [d for d, n in enumerate(src) if n == 1], [d for d, n in enumerate(res) if n == 1]


def _squeezed(lay: Layout, d: int) -> Layout:
    if isinstance(lay, PairLayout) and lay.parent.rank() is not None and d < lay.parent.rank():
        return PairLayout(_squeezed(lay.parent, d))
    return SliceLayout(d, lay)


def _unsqueezed(lay: Layout, d: int) -> Layout | None:
    if isinstance(lay, SliceLayout) and lay.dim.data == d:
        return lay.parent
    if isinstance(lay, PairLayout) and lay.parent.rank() is not None and d <= lay.parent.rank():
        inner = _unsqueezed(lay.parent, d)
        return None if inner is None else PairLayout(inner)
    return None


def regrouped(lay: Layout, removed: list[int], inserted: list[int]) -> Layout | None:
    """The layout of a tile in `lay` with dims `removed` (size 1) taken out, then dims
    `inserted` (size 1) put in; None where that is not a re-indexing of the same registers
    (a size-1 dim inserted where the layout has no slice to undo)."""
    for d in reversed(removed):
        lay = _squeezed(lay, d)
    for d in inserted:
        lay = _unsqueezed(lay, d)
        if lay is None:
            return None
    return lay


def _dims(t) -> str:
    return "x".join(map(str, t.get_shape()))


def inverse(perm: list[int]) -> list[int]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


# A constraint between two values: b = fwd(a) and a = bwd(b) (None: cannot be inferred).
Rule = Callable[[Layout], Layout | None]


@dataclass
class Edge:
    a: SSAValue
    b: SSAValue
    fwd: Rule
    bwd: Rule
    op: Operation


def _same(x: Layout) -> Layout:
    return x


class BranchLayouts:
    """Layouts of the tiles of one warp-group branch."""

    def __init__(self, branch: BranchOp, interleaved: set[SSAValue] | frozenset = frozenset()):
        self.branch = branch
        self.interleaved = interleaved  # buffers whose slots hold fp8 keys interleaved (key_order)
        self.G = branch.num_warps // 4
        self.acc = WgmmaLayout(self.G)
        self.L: dict[SSAValue, Layout] = {}
        self.free: dict[SSAValue, bool] = {}

    # ---- constraints of one op
    def edges(self, o: Operation) -> list[Edge]:
        n = o.name
        E: list[Edge] = []

        def eq(a: SSAValue, b: SSAValue) -> None:
            if is_tile(a) and is_tile(b):
                E.append(Edge(a, b, _same, _same, o))

        if n.startswith(("arith.", "math.")) or n in ("tile.addptr", "tile.load", "tile.broadcast"):
            if len(o.results) == 1 and is_tile(o.results[0]):
                for x in o.operands:
                    eq(x, o.results[0])
        elif n == "tile.expand_dims":
            ax = o.axis.value.data
            E.append(Edge(o.operands[0], o.results[0],
                          lambda s, ax=ax: s.parent if isinstance(s, SliceLayout) and s.dim.data == ax else None,
                          lambda r, ax=ax: SliceLayout(ax, r), o))
        elif n == "tile.trans":
            perm = [x for x in o.order.get_values()]
            E.append(Edge(o.operands[0], o.results[0], lambda s, p=perm: permuted(p, s),
                          lambda r, p=perm: permuted(inverse(p), r), o))
        elif n == "tile.reshape":
            E.extend(self.reshape_edges(o))
        elif n == "tile.join":
            for x in o.operands:
                E.append(Edge(x, o.results[0], PairLayout, lambda r, o=o: self.unpaired(o, r, "result"), o))
        elif n == "tile.split":
            for r in o.results:
                E.append(Edge(o.operands[0], r, lambda s, o=o: self.unpaired(o, s, "operand"), PairLayout, o))
        elif n == "tile.reduce" and is_tile(o.results[0]):
            ax = o.axis.value.data
            E.append(Edge(o.operands[0], o.results[0], lambda s, ax=ax: SliceLayout(ax, s),
                          lambda r, ax=ax: r.parent if isinstance(r, SliceLayout) and r.dim.data == ax else None, o))
        elif n in STORE_GROUPS:
            val = o.operands[1]
            for x in [*o.operands, *o.results]:
                if x is not val:
                    eq(val, x)
        elif n in DOTS:
            eq(o.operands[2], o.results[0])
        elif n in WAITS:
            for x, r in zip(o.operands, o.results):
                eq(x, r)
        elif n == "warp_group.share":
            E.append(Edge(o.operands[0], o.results[0], _same, _same, o))
        elif n == "scf.for":
            body = o.regions[0].blocks[0]
            y = body.last_op
            for init, arg, res, yv in zip(o.operands[3:], body.args[1:], o.results, y.operands):
                eq(init, arg)
                eq(arg, res)
                eq(yv, res)
        elif n == "scf.if":
            for region in o.regions:
                if region.blocks and region.blocks[0].last_op is not None:
                    for yv, res in zip(region.blocks[0].last_op.operands, o.results):
                        eq(yv, res)
        return E

    @staticmethod
    def unpaired(o: Operation, lay: Layout, what: str) -> Layout:
        """The layout of the halves of a `tile.join` / `tile.split` whose joined tile is in `lay`."""
        if isinstance(lay, PairLayout):
            return lay.parent
        t = o.results[0].type if what == "result" else o.operands[0].type
        raise error_at(o, f"ws-lower-layouts: {o.name} is lowered only where its minor dim of 2 is a pair of "
                          f"one thread's registers (#layout.pair); the {what} of this one ({_dims(t)}) is "
                          f"needed in {lay}")

    @staticmethod
    def reshape_edges(o: Operation) -> list[Edge]:
        src, res = o.operands[0].type, o.results[0].type
        dims = unit_dims(src.get_shape(), res.get_shape())
        if dims is None:
            raise error_at(o, f"ws-lower-layouts: tile.reshape of {_dims(src)} to {_dims(res)} moves elements "
                              "between threads, which is not lowered; a reshape that only inserts or removes "
                              "dims of size 1 is (and tile.join / tile.split for a minor dim of 2)")
        removed, inserted = dims

        def rule(lay: Layout, rm: list[int], ins: list[int], a, b) -> Layout:
            out = regrouped(lay, rm, ins)
            if out is None:
                raise error_at(o, f"ws-lower-layouts: tile.reshape of {_dims(a)} to {_dims(b)} of a tile in {lay} "
                                  "moves elements between threads (its size-1 dims change places), which is not "
                                  "lowered; only inserting or removing dims of size 1 where the layout keeps each "
                                  "element in its thread is")
            return out

        return [Edge(o.operands[0], o.results[0], lambda s: rule(s, removed, inserted, src, res),
                     lambda r: rule(r, inserted, removed, res, src), o)]

    # ---- anchors
    def anchor(self, o: Operation) -> None:
        n = o.name
        if n == "nvgpu.smem.view":
            sh = shared_for(o.results[0].type)
            if sh is None:
                t = o.results[0].type
                raise error_at(o, f"ws-lower-layouts: a slot tile {t} cannot live in swizzled shared memory "
                                  "(a row must be 32, 64 or a multiple of 128 bytes)")
            if o.operands[0] in self.interleaved:
                sh = SharedLayout(sh.swizzle.data, sh.perm(), INTERLEAVE)
            self.set(o.results[0], sh, o)
        elif n in DOTS:
            self.set(o.results[0], self.acc, o)
        elif n == "warp_group.gather":  # staged as a slot of the tile would be: TMA stores it from there
            self.set(o.results[0], shared_for(o.results[0].type) or SharedLayout(0, (1, 0)), o)

    def load_shared(self, ops: list[Operation]) -> None:
        """A tile in shared memory that an op other than wgmma reads element by element is
        loaded into registers first (`nvgpu.smem.load`, right after it is defined)."""
        for o in ops:
            for v in o.results:
                lay = self.L.get(v)
                if not isinstance(lay, SharedLayout) or o.name == "warp_group.gather":
                    continue  # a gather's staged tile is only stored (by TMA)
                readers = [u for u in v.uses if not self.keeps_shared(u.operation, u.index)]
                if not readers:
                    continue
                load = SmemLoadOp(v, with_layout(v.type, None))
                load.location = readers[0].operation.location  # errors about the registers point at the reader
                load.result.name_hint = (v.name_hint or "slot") + "_r"
                o.parent_block().insert_op_after(load, o)
                for u in readers:
                    u.operation.operands[u.index] = load.result
                copy = self.copy_layout(v, readers)
                if copy is not None:
                    self.L[load.result] = copy

    def copy_layout(self, v: SSAValue, readers) -> Layout | None:
        """The register layout of an 8-bit tile read from shared memory only to be stored there
        again (`transpose_copy.copy_layout_for`); None: the layout its readers give it."""
        if any(u.operation.name != "nvgpu.smem.store" or u.index != 0 for u in readers):
            return None
        il = any(u.operation.operands[1] in self.interleaved for u in readers)
        return copy_layout_for(v.type, self.L.get(v), self.branch.num_warps, il)

    def keeps_shared(self, user: Operation, index: int) -> bool:
        n = user.name
        if n in DOTS:
            return index < 2
        if n in ("tile.trans", "warp_group.share"):
            for r in user.results:
                self.L.setdefault(r, permuted(list(user.order.get_values()), self.L[user.operands[0]])
                                  if n == "tile.trans" else self.L[user.operands[0]])
            return True
        return n == "nvgpu.smem.load"

    def set(self, v: SSAValue, lay: Layout, where: Operation) -> bool:
        old = self.L.get(v)
        if old == lay:
            return False
        if old is not None:
            raise error_at(where, f"ws-lower-layouts: this tile ({v.type}) is needed in {lay} here but is in "
                                  f"{old}; converting a tile between layouts is not supported")
        self.L[v] = lay
        return True

    # ---- solve
    def ops(self) -> list[Operation]:
        return [o for o in self.branch.body.walk() if o is not self.branch]

    def solve(self) -> None:
        ops = self.ops()
        for o in ops:
            for r in o.results:
                if is_tile(r) and (l := layout_of(r.type)) is not None:
                    self.L[r] = l
            for region in o.regions:
                for b in region.blocks:
                    for a in b.args:
                        if is_tile(a) and (l := layout_of(a.type)) is not None:
                            self.L[a] = l
        for o in ops:
            self.anchor(o)
        self.load_shared(ops)
        ops = self.ops()  # with the loads
        edges = [e for o in ops for e in self.edges(o)]
        fixed = [e for e in edges if not self.is_free(e.a) and not self.is_free(e.b)]
        self.propagate(fixed)
        for o in ops:
            if o.name in DOTS:
                self.register_a(o)
        self.propagate(fixed)
        # Tiles nothing anchors (a loop-carried tile built from scalars, a tile TMA-loaded
        # into registers, a row vector read from a slot and put into another): the
        # accumulator layout for 2-D tiles, its row slice for 1-D ones, then propagate again.
        tiles = [v for o in ops for v in [*o.results, *(a for r in o.regions for b in r.blocks for a in b.args)]
                 if is_tile(v) and not self.is_free(v)]
        # A joined tile takes its layout from its halves (a pair of registers), never a default.
        paired = {o.results[0] for o in ops if o.name == "tile.join"} | \
                 {o.operands[0] for o in ops if o.name == "tile.split"}
        for rank, default in ((2, self.acc), (1, SliceLayout(1, self.acc))):
            while True:
                todo = [v for v in tiles if v not in self.L and len(v.type.get_shape()) == rank and v not in paired]
                if not todo:
                    break
                self.L[todo[0]] = default
                self.propagate(fixed)
        for v in tiles:
            if v not in self.L:
                where = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()
                raise error_at(where, f"ws-lower-layouts: cannot tell which threads hold the elements of "
                                      f"this {v.type}")
        self.place_free(ops)

    def register_a(self, dot: Operation) -> None:
        """A dot's A operand in registers must be in the accumulator fragment: for m64nNk16,
        a thread's four f16x2 A registers of k-block j are the (converted) accumulator
        registers 8j..8j+7 of that fragment, so FlashAttention-3's P·V reads P where
        the softmax left it. Any other register layout would need a conversion."""
        a = dot.operands[0]
        lay = self.L.get(a)
        if isinstance(lay, SharedLayout) or self.is_free(a):
            return
        if nbytes(a.type.element_type) == 1:
            return self.convert_a8(dot, lay)
        if lay is None:
            self.set(a, self.acc, dot)
        elif lay != self.acc:
            raise error_at(dot, f"ws-lower-layouts: the A operand of this dot is a register tile in {lay}; "
                                f"wgmma reads register A in the accumulator fragment {self.acc} (the layout of "
                                "an earlier dot's result), and converting a tile between register layouts is "
                                "not supported")

    def convert_a8(self, dot: Operation, lay: Layout | None) -> None:
        """An 8-bit register A (an fp8 P) computed in the accumulator fragment is converted
        into wgmma's 8-bit A fragment (`#layout.operand_a`) by an `nvgpu.convert_layout`
        before the dot's wgmma group; a tile in any other layout is rejected."""
        a = dot.operands[0]
        if lay is None:
            self.set(a, self.acc, dot)
        elif lay != self.acc:
            raise error_at(dot, f"ws-lower-layouts: the A operand of this dot is an 8-bit register tile in {lay}; "
                                f"only a tile in the accumulator fragment {self.acc} (an earlier dot's result, "
                                "converted elementwise) is converted into wgmma's 8-bit A fragment "
                                f"{OperandALayout(self.acc)}")
        want = OperandALayout(self.acc, INTERLEAVE if interleaved_b(dot, self.interleaved) else 0)
        conv = ConvertLayoutOp(a, with_layout(a.type, None))
        conv.location = dot.location
        conv.result.name_hint = (a.name_hint or "a") + "_frag"
        at = dot  # before the wgmma group (its fence and the mma_asyncs issued with it)
        while at.prev_op is not None and at.prev_op.name in ("nvgpu.wgmma.fence", "nvgpu.wgmma.mma_async"):
            at = at.prev_op
        at.parent_block().insert_op_before(conv, at)
        dot.operands[0] = conv.result
        self.L[conv.result] = want

    def is_free(self, v: SSAValue) -> bool:
        return is_free(v, self.free)

    def propagate(self, edges: list[Edge]) -> None:
        changed = True
        while changed:
            changed = False
            for e in edges:
                la, lb = self.L.get(e.a), self.L.get(e.b)
                if la is not None:
                    want = e.fwd(la)
                    if want is not None:
                        changed |= self.set(e.b, want, e.op)
                if lb is not None:
                    want = e.bwd(lb)
                    if want is not None:
                        changed |= self.set(e.a, want, e.op)

    def demand(self, use_op: Operation, index: int) -> Layout | None:
        """The layout `use_op` needs its operand `index` in (its own tiles are placed)."""
        x = use_op.operands[index]
        if use_op.name == "scf.yield":
            return self.L.get(use_op.parent_op().results[index])
        for e in self.edges(use_op):
            if e.a is x and e.b in self.L:
                return e.bwd(self.L[e.b])
            if e.b is x and e.a in self.L:
                return e.fwd(self.L[e.a])
        if use_op.name in STORE_GROUPS + ("tile.desc_store", "nvgpu.smem.store", "warp_group.gather") \
                or use_op.name in DOTS:
            return self.acc if len(x.type.get_shape()) == 2 else SliceLayout(1, self.acc)
        return None

    def place_free(self, ops: list[Operation]) -> None:
        """Free tiles, users before definitions: each takes the layout its uses need; a
        tile two uses need in two layouts is computed once per layout."""
        for o in reversed(ops):
            if not (len(o.results) == 1 and is_tile(o.results[0]) and self.is_free(o.results[0])):
                continue
            v = o.results[0]
            if v in self.L:
                continue
            by_layout: dict[Layout, list] = {}
            for use in list(v.uses):
                lay = self.demand(use.operation, use.index)
                if lay is None:
                    raise error_at(use.operation, f"ws-lower-layouts: cannot tell which threads hold the "
                                                  f"elements of this operand ({v.type})")
                by_layout.setdefault(lay, []).append(use)
            if not by_layout:
                self.L[v] = self.acc if len(v.type.get_shape()) == 2 else SliceLayout(1, self.acc)
                continue
            first, *rest = by_layout.items()
            self.L[v] = first[0]
            for lay, uses in rest:
                twin = o.clone()
                twin.results[0].name_hint = v.name_hint
                o.parent_block().insert_op_after(twin, o)
                for use in uses:
                    use.operation.operands[use.index] = twin.results[0]
                self.L[twin.results[0]] = lay

    # ---- check and write
    def check(self) -> None:
        for v, lay in self.L.items():
            where = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()
            shape = v.type.get_shape()
            r = lay.rank()
            if r is not None and r != len(shape):
                raise error_at(where, f"ws-lower-layouts: {lay} does not fit the rank-{len(shape)} tile {v.type}")
            # A slice holds the parent's elements with the removed dimension of size 1.
            full, acc = list(shape), lay
            while isinstance(acc, (SliceLayout, PairLayout)):
                if isinstance(acc, PairLayout):
                    if full[-1] not in (1, 2):  # 1: a broadcast operand
                        raise error_at(where, f"ws-lower-layouts: {lay} does not fit {v.type}: its minor dim "
                                              "must be 2 (or 1, broadcast)")
                    full.pop()
                else:
                    full.insert(acc.dim.data, 1)
                acc = acc.parent
            if isinstance(acc, BlockedLayout):
                (tr, tc), (wr, wc) = acc.lane_dims(), acc.warp_dims()
                if full[0] % (4 * tr * wr) or full[1] % (4 * tc * wc) or wr * wc * 32 != 32 * (self.branch.num_warps):
                    raise error_at(where, f"ws-lower-layouts: {lay} does not fit {v.type} in a branch of "
                                          f"{self.branch.num_warps} warps")
            if isinstance(acc, OperandALayout):
                M, K = full
                if M % (WGMMA_M * acc.parent.groups) or K % 32:
                    raise error_at(where, f"ws-lower-layouts: a {M}x{K} tile does not fit wgmma's 8-bit A fragment "
                                          f"of {acc.parent.groups} warp group(s): rows must be a multiple of "
                                          f"{WGMMA_M * acc.parent.groups}, columns of 32")
            if isinstance(acc, WgmmaLayout):
                M, N = full
                if (M != 1 and M % (WGMMA_M * acc.groups)) or (N != 1 and (N % 8 or N > MAX_N)):
                    what = "x".join(map(str, shape))
                    raise error_at(where, f"ws-lower-layouts: a {what} tile does not fit the wgmma accumulator "
                                          f"of {acc.groups} warp group(s): rows must be a multiple of "
                                          f"{WGMMA_M * acc.groups}, columns a multiple of 8 and at most {MAX_N}")

    def write(self) -> None:
        for v, lay in list(self.L.items()):
            if layout_of(v.type) == lay:
                continue
            new = Rewriter.replace_value_with_new_type(v, with_layout(v.type, lay))
            o = new.owner
            if isinstance(o, Operation) and o.name == "arith.constant" \
                    and isinstance(o.value, DenseIntOrFPElementsAttr):
                o.properties["value"] = DenseIntOrFPElementsAttr(new.type, o.value.data)


def assign_layouts(branch: BranchOp, interleaved: set[SSAValue] | frozenset = frozenset()) -> None:
    b = BranchLayouts(branch, interleaved)
    b.solve()
    b.check()
    b.write()


@dataclass(frozen=True)
class LowerLayoutsPass(ModulePass):
    """Give every tile of each nvgpu.wg.branch an explicit #layout encoding; `fp8-keys`:
    natural, or interleaved (FlashAttention-3's key order in an fp8 V^T and P's A fragment,
    wsdialects/lower/key_order.py)."""

    name = "ws-lower-layouts"
    fp8_keys: str = "interleaved"

    def apply(self, ctx, op: ModuleOp) -> None:
        if self.fp8_keys not in FP8_KEYS:
            raise WsError(f"{self.name}: fp8-keys must be natural or interleaved, got '{self.fp8_keys}'", "ws-opt")
        bufs = interleaved_buffers(op) if self.fp8_keys == "interleaved" else frozenset()
        for br in [o for o in op.walk() if isinstance(o, BranchOp)]:
            assign_layouts(br, bufs)


def needs_layouts(module: Operation) -> bool:
    """A wg.branch still has a tile without a layout."""
    for br in module.walk():
        if isinstance(br, BranchOp):
            for o in br.walk():
                for v in list(o.results) + [a for r in o.regions for b in r.blocks for a in b.args]:
                    if is_tile(v) and layout_of(v.type) is None:
                        return True
    return False

