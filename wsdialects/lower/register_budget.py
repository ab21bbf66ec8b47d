"""`ws-register-budget`: how many 32-bit registers per thread each warp-group branch
needs, written on the branch as `ws.regs_per_thread`, with a located warning where that is
above the branch's budget (the `setmaxnreg` value ws-lower-warp-groups chose, at most 255):
ptxas would spill there, silently, to local memory. The IR is otherwise unchanged.

    nvgpu.wg.branch warps 4 to 8 "consumer" {
      nvgpu.setmaxnreg inc 256
      ...
      %acc2 = nvgpu.wgmma.mma_async %a, %bt, %acc : ... -> tensor<128x256xf32, #layout.wgmma<warp_groups = 1>>
      ...
    } attributes {ws.regs_per_thread = 284 : i32}

    gemm_w4.mlir:24:7: warning: ws-register-budget: the consumer branch (warps 4 to 8) needs
    about 284 registers per thread, above its budget of 255 (setmaxnreg 256); ptxas will spill
    registers to local memory. The 128x256xf32 tile alone takes 256 registers per thread in
    1 warp group: spread it over more warp groups (tile.num_warps = 8 on the kernel, or
    ws-hopper{cooperative=2}) or use a smaller tile

(the 128x256 GEMM with `tile.num_warps = 4`; the warning is at its `tile.dot`). It runs
last in `ws-hopper`, on laid-out tiles (after ws-lower-layouts; a tile without a layout
counts as if it were in the wgmma fragment of its branch's warp groups). Before
ws-lower-warp-groups there is no branch: a remark, nothing else.

The model follows what the LLVM emitter (wsdialects/lower/llvm) makes of a branch:
- a tile's registers per thread come from its layout (wsdialects/layout.py): an MxN tile in
  `#layout.wgmma<warp_groups = G>` is (M / 64G) * N / 2 elements per thread, a row slice
  2 * M / 64G, a column slice N / 4, a dimension of size 1 is held by every thread; 32-bit
  elements are one register each, 64-bit (pointers) two, 16-bit two to a register
  (cvt.rn.f16x2.f32 packs them), i1 one each; `#layout.shared` tiles hold none;
- tiles the emitter holds as registers are the wgmma accumulators (`nvgpu.wgmma.mma_async`,
  `wait_group`), loop-carried and `scf.if` results, and reduction inputs; every other tile
  (elementwise arith and math, splat, broadcast, index ranges, pointer loads, reads of
  shared memory) is evaluated per element where a whole-tile op needs it, so it streams
  into its consumer and takes registers only while a later whole-tile op still reads it;
  index tiles (computed from ranges, splats and constants only) take none: ptxas
  recomputes them where they are used -- except one computed by an op of its own before a
  loop that reads it (a pointer tile's offsets), which LLVM hoists and holds through the
  loop; an op that writes memory (`tile.atomic_add`) reads its operands where it is;
- a register A operand of a wgmma stays in its registers until the `wait_group` retiring
  that wgmma (an async dot waited for later: attention backward's P of dV += P dO while
  dP^T is waited for and dS computed); one evaluated where the wgmma is issued (P converted
  from S) replaces the tiles it is made from, which are not live beside it;
- liveness is SSA liveness over the branch in program order, a value used inside a loop
  it was not defined in staying live through the whole loop; the estimate is the peak,
  plus OVERHEAD registers for scalars (addresses, loop counters, descriptors, parities).

The estimate is a model, not ptxas: it leaves out LLVM's and ptxas's scheduling, so it is
meant to catch tiles that cannot fit (an accumulator at or near the budget), not to predict
ptxas's count to the register. `python test/lower/test_register_budget.py` prints the estimate
beside ptxas's need (the smallest `.maxnreg` at which ptxas assembles the kernel's PTX without
spills) for the bundled kernels, and its tests bound the difference on ws-hopper's own
organisations (at most 32 below, 16 above); on those kernels the estimate is above the budget
exactly where ptxas spills. An accumulator computed into its wgmma (`acc * alpha`) takes the
result's registers: counting it beside its operand would give false warnings. `-t ptx` also
runs ptxas, where it is installed, and warns with its spill counts (wsdialects/lower/ptxas.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from wsdialects.diagnostics import location_of, warning
from wsdialects.layout import Layout, PermuteLayout, SharedLayout, SliceLayout, WgmmaLayout, layout_of
from wsdialects.nvgpu import BranchOp, DispatchOp, WgmmaMmaAsyncOp, WgmmaWaitGroupOp

REGS_ATTR = "ws.regs_per_thread"
MAX_REGS = 255  # registers a thread can address (setmaxnreg may say 256)
OVERHEAD = 28  # scalars of a branch: addresses, loop counters, descriptors, parities (calibrated)

# Ops whose results the emitter holds as registers (everything else with a tile result is
# evaluated per element where it is used); tile.reduce reads its whole input at once.
HELD_OPS = ("nvgpu.wgmma.mma_async", "nvgpu.wgmma.wait_group", "scf.for", "scf.if", "tile.reduce")
# Tiles whose elements are those of their operand, a scalar or an immediate: no registers of their own.
# Tiles read from memory: never index tiles.
LOAD_OPS = ("tile.load", "tile.desc_load", "nvgpu.smem.load", "warp_group.share", "warp_group.gather")
# tile.make_range counts here too: its elements are the thread's fragment coordinate plus a
# constant, which ptxas folds into the instructions that use them or recomputes.
ALIAS_OPS = ("tile.broadcast", "tile.expand_dims", "tile.trans", "tile.splat", "arith.constant", "tile.make_range")


# ---- registers per thread of one tile

def _rows(m: int, groups: int) -> int:
    """Rows of an m-row tile a thread holds in the wgmma fragment of `groups` warp groups."""
    return 1 if m == 1 else 2 * max(1, -(-m // (64 * groups)))


def _cols(n: int) -> int:
    return 1 if n == 1 else 2 * max(1, -(-n // 8))


def _elems(layout: Layout, shape: tuple[int, ...], groups: int) -> int:
    if isinstance(layout, SharedLayout):
        return 0
    if isinstance(layout, WgmmaLayout):
        m, n = shape if len(shape) == 2 else (1, shape[-1] if shape else 1)
        return _rows(m, layout.groups) * _cols(n)
    if isinstance(layout, SliceLayout):
        (length,) = shape or (1,)
        parent = layout.parent
        g = parent.groups if isinstance(parent, WgmmaLayout) else groups
        return _rows(length, g) if layout.dim.data == 1 else _cols(length)
    if isinstance(layout, PermuteLayout):
        perm = layout.perm()
        src = [0] * len(perm)
        for i, a in enumerate(perm):
            src[a] = shape[i]
        return _elems(layout.parent, tuple(src), groups)
    return _default_elems(shape, groups)


def _default_elems(shape: tuple[int, ...], groups: int) -> int:
    """A tile without a register layout: as if in the wgmma fragment of `groups` warp groups."""
    if len(shape) == 2:
        return _rows(shape[0], groups) * _cols(shape[1])
    n = 1
    for s in shape:
        n *= s
    return _rows(n, groups)


def _bits(t) -> int:
    from wsdialects.lower.llvm.types import bits_of

    try:
        return bits_of(t)
    except TypeError:
        return 32


def tile_regs(t, groups: int) -> float:
    """32-bit registers per thread that a tile of type `t` takes in a branch of `groups`
    warp groups (0 for a scalar or a tile in shared memory)."""
    if not isinstance(t, TensorType):
        return 0
    shape = tuple(t.get_shape())
    lay = layout_of(t)
    n = _elems(lay, shape, groups) if lay is not None else _default_elems(shape, groups)
    bits = _bits(t.element_type)
    return n * (1 if bits == 1 else bits / 32)


# ---- liveness over a branch

# Ops with a tile result that write memory: they run (and read their operands) where they are,
# whether or not their result is used.
EFFECT_OPS = ("tile.atomic_add",)


def _lazy(op: Operation) -> bool:
    """A tile op the emitter evaluates per element where its result is used."""
    return (len(op.results) == 1 and not op.regions and isinstance(op.results[0].type, TensorType)
            and op.name not in HELD_OPS and op.name not in EFFECT_OPS)


@dataclass
class _Live:
    """`value` holds `regs` registers per thread from point `start` to point `end`."""

    value: SSAValue
    regs: float
    start: float
    end: float
    held: bool = True  # False: evaluated per element (takes registers only while live across points)
    reads: list[tuple[int, float]] = field(default_factory=list)  # (point, live until: past a loop's end)


@dataclass
class Estimate:
    """One branch: registers per thread at the peak (tiles + OVERHEAD), its budget, and the
    largest tile live at the peak with the op that made it."""

    branch: BranchOp
    regs: int
    budget: int
    largest: SSAValue | None = None
    largest_regs: int = 0
    at: Operation | None = None

    @property
    def spills(self) -> bool:
        # A branch that holds no tile (a TMA producer) is all scalars, which OVERHEAD only
        # averages: ptxas fits such a branch in setmaxnreg's least (24), so it is not judged.
        return self.regs > self.budget and self.largest_regs > 0


class _BranchLiveness:
    """Points are the branch's ops in program order (a region op has one point before its
    body, where it reads its operands, and one after, where its results appear)."""

    def __init__(self, br: BranchOp):
        self.br = br
        self.groups = max(1, br.num_warps // 4)
        self.start: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        self.at: dict[int, Operation] = {}
        self.ifs: dict[int, dict[Operation, int]] = {}  # point -> the scf.if regions it is in
        self.n = self._number(br.body.block, 0, {})
        self._reads: dict[SSAValue, list[int]] = {}
        self._evals: dict[SSAValue, list[_Live]] = {}
        self._index: dict[SSAValue, bool] = {}

    def _number(self, block: Block, i: int, ifs: dict) -> int:
        for op in block.ops:
            self.start[op] = self.end[op] = i
            self.at[i], self.ifs[i] = op, ifs
            i += 1
            if op.regions:
                for k, r in enumerate(op.regions):
                    inner = {**ifs, op: k} if isinstance(op, scf.IfOp) else ifs
                    for b in r.blocks:
                        i = self._number(b, i, inner)
                self.end[op] = i
                self.ifs[i] = ifs
                i += 1
        return i

    def reads(self, v: SSAValue) -> list[int]:
        """The points where `v`'s registers are read: its users that are not evaluated per
        element; the first evaluations of those that are (later uses read the emitter's
        memo of them, not `v`); every read of a tile that aliases `v`'s registers."""
        if v not in self._reads:
            pts: set[int] = set()
            for use in v.uses:
                u = use.operation
                if u not in self.start:
                    continue
                if not _lazy(u):
                    pts.add(self.start[u])
                elif u.name in ALIAS_OPS:
                    pts.update(self.reads(u.results[0]))
                else:
                    pts.update(lv.start for lv in self.evaluations(u.results[0]))
            self._reads[v] = sorted(pts)
        return self._reads[v]

    def evaluations(self, v: SSAValue) -> list[_Live]:
        """A tile evaluated per element lives from its first evaluation to its last read in
        the same evaluation scope (the emitter memoizes per loop body and if branch; a read
        outside that scope evaluates it again)."""
        if v not in self._evals:
            pts = self.reads(v)
            if self._index_tile(v) and self._hoisted(v, pts):  # held from its op through the loops reading it
                self._evals[v] = [self._live(v, tile_regs(v.type, self.groups), self.start[v.owner], pts)]
                return self._evals[v]
            regs = 0 if self._index_tile(v) else tile_regs(v.type, self.groups)
            out = []
            i = 0
            while i < len(pts):
                scope = self.at[pts[i]].parent_block()
                j = i
                while j + 1 < len(pts) and _inside(self.at[pts[j + 1]], scope):
                    j += 1
                out.append(self._live(v, regs, pts[i], pts[i:j + 1], held=False))
                i = j + 1
            self._evals[v] = out
        return self._evals[v]

    def _index_tile(self, v: SSAValue) -> bool:
        """A tile computed from ranges, splats and constants only (offsets, masks): ptxas
        recomputes its elements where they are used rather than hold them. Aliases count too."""
        if v not in self._index:
            op = v.owner
            self._index[v] = isinstance(op, Operation) and (op.name in ALIAS_OPS or (
                _lazy(op) and op.name not in LOAD_OPS and all(
                    not isinstance(x.type, TensorType) or self._index_tile(x) for x in op.operands)))
        return self._index[v]

    def _hoisted(self, v: SSAValue, pts: list[int]) -> bool:
        """An index tile computed by an op of its own (not an alias of a smaller tile) before a
        loop that reads it: LLVM hoists its elements out of the loop and holds them through it
        (the offsets of a pointer tile, 128x64 i32: 32 registers), no longer recomputed."""
        op = v.owner
        if not isinstance(op, Operation) or op.name in ALIAS_OPS:
            return False
        a = self.start[op]
        for p in pts:
            cur = self.at[p].parent_op()
            while cur is not None and cur is not self.br:
                if isinstance(cur, scf.ForOp) and not self.start[cur] < a < self.end[cur]:
                    return True
                cur = cur.parent_op()
        return False

    def in_flight_operands(self) -> list[_Live]:
        """A register A operand of a wgmma stays in its registers until the wait that retires
        the wgmma (the tensor cores read it meanwhile): from the issue to that wait_group."""
        out = []
        for op in self.start:
            if not isinstance(op, WgmmaMmaAsyncOp) or not (regs := tile_regs(op.a.type, self.groups)):
                continue
            waits = [self.start[u.operation] for u in op.result.uses
                     if isinstance(u.operation, WgmmaWaitGroupOp) and u.operation in self.start]
            if waits and min(waits) > self.start[op] + 1:
                out.append(_Live(op.a, regs, self.start[op], min(waits), True, [(min(waits), min(waits))]))
        return out

    @staticmethod
    def required(op: Operation) -> list[SSAValue]:
        """Tiles `op` needs in registers all at once."""
        if isinstance(op, WgmmaMmaAsyncOp):
            return [op.a, op.acc]
        if isinstance(op, scf.ForOp):
            return list(op.iter_args)
        if op.name in ("nvgpu.wgmma.wait_group", "scf.yield", "tile.reduce"):
            return list(op.operands)
        return []

    def _live(self, v: SSAValue, regs: float, a: float, points: list[int], held: bool = True) -> _Live:
        """`v`, defined at `a` and read at `points`: a read in a loop that does not hold the
        definition keeps it live through the whole loop (to the loop's end point)."""
        reads = []
        for p in points:
            e = p
            cur = self.at[p].parent_op()
            while cur is not None and cur is not self.br:
                if isinstance(cur, scf.ForOp) and not self.start[cur] < a < self.end[cur]:
                    e = max(e, self.end[cur])
                cur = cur.parent_op()
            reads.append((p, e))
        return _Live(v, regs, a, max([a] + [e for _, e in reads]), held, reads)

    def _reachable(self, p: int, q: int) -> bool:
        """Whether point q can run after point p without a loop's back edge: not when p is in
        the `then` region of an scf.if and q in its `else` region."""
        return q > p and not any(r == 0 and self.ifs[q].get(i) == 1 for i, r in self.ifs[p].items())

    def _through(self, lv: _Live, p: int) -> bool:
        """Whether `lv` is live through point p (defined before, read after on some path)."""
        return lv.start < p < lv.end and any(e > p and (e > q or self._reachable(p, q)) for q, e in lv.reads)

    def intervals(self) -> list[_Live]:
        out: list[_Live] = []
        for op in self.start:
            if op.name in HELD_OPS:
                for r in op.results:
                    if regs := tile_regs(r.type, self.groups):
                        out.append(self._live(r, regs, self.end[op], self.reads(r)))
            elif _lazy(op):
                out += [lv for lv in self.evaluations(op.results[0]) if lv.regs]
            if isinstance(op, scf.ForOp):
                for arg in op.body.block.args[1:]:
                    if regs := tile_regs(arg.type, self.groups):
                        a = self.start[op] + 0.5  # the loop's phis: live from the top of each iteration
                        out.append(self._live(arg, regs, a, self.reads(arg)))
        return out

    def estimate(self, budget: int) -> Estimate:
        lives = self.intervals() + self.in_flight_operands()
        # the intervals each point can see (start <= p <= end: live through it, dying or made at
        # it), in the order of `lives` (a tie between peaks keeps the first)
        seen: list[list[_Live]] = [[] for _ in range(self.n)]
        for lv in lives:
            for p in range(max(0, math.ceil(lv.start)), min(self.n - 1, math.floor(lv.end)) + 1):
                seen[p].append(lv)
        best, peaks = -1.0, []
        for p in range(self.n):
            total, vals = self._pressure(p, seen[p])
            if total > best:
                best, peaks = total, []
            if total == best:
                peaks.append(vals)
        est = Estimate(self.br, int(-(-max(best, 0) // 1)) + OVERHEAD, budget)
        # blame the largest tile at a peak, preferring a wgmma accumulator (the dot to change)
        cands = [(r, isinstance(_origin(v), WgmmaMmaAsyncOp), v) for vals in peaks for v, r in vals.items()]
        if cands:
            r, _, v = max(cands, key=lambda c: c[:2])
            est.largest, est.largest_regs, est.at = v, int(-(-r // 1)), _origin(v)
        return est

    def _pressure(self, p: int, lives: list[_Live]) -> tuple[float, dict[SSAValue, float]]:
        """Registers at point p: tiles live through it, plus the larger of the tiles that die
        at p and those p makes (an elementwise result takes the registers of the operands it
        consumes)."""
        through: dict[SSAValue, float] = {}
        ins: dict[SSAValue, float] = {}
        outs: dict[SSAValue, float] = {}
        for lv in lives:
            if self._through(lv, p):
                through[lv.value] = lv.regs
            elif lv.start < p and (lv.end == p or any(q == p for q, _ in lv.reads)):
                ins[lv.value] = lv.regs
            elif lv.start == p and (lv.end > p or lv.held):
                outs[lv.value] = lv.regs
        op = self.at.get(p)
        if op is not None and self.start[op] == p:
            regs = {v: tile_regs(v.type, self.groups) for v in self.required(op) if v not in through}
            if isinstance(op, WgmmaMmaAsyncOp):  # the accumulator becomes the result; A is read meanwhile
                # A held accumulator dies into the result; one evaluated here (acc * alpha) is computed
                # straight into the result's registers from operands that are counted themselves
                if not (isinstance(op.acc.owner, Operation) and _lazy(op.acc.owner)):
                    ins[op.acc] = regs.get(op.acc, 0)
                if op.a in regs:
                    ins[op.a] = outs[op.a] = regs[op.a]
                    if isinstance(op.a.owner, Operation) and _lazy(op.a.owner):
                        # a register A evaluated here (P converted from S) replaces the tiles it is
                        # computed from as it is made: they and A are not live at once
                        srcs = {v: r for v, r in ins.items() if v is not op.a and v is not op.acc}
                        if srcs:
                            ins = {v: r for v, r in ins.items() if v not in srcs}
                            ins[op.a] = max(regs[op.a], sum(srcs.values()))
            else:  # tiles evaluated here for `op` (a yield's, a loop's initial values)
                outs.update((v, r) for v, r in regs.items() if v not in ins)
        total = sum(through.values()) + max(sum(ins.values()), sum(outs.values()))
        return total, {**ins, **outs, **through}


def _inside(op: Operation, block: Block) -> bool:
    cur: Operation | None = op
    while cur is not None:
        if cur.parent_block() is block:
            return True
        cur = cur.parent_op()
    return False


def _origin(v: SSAValue, depth: int = 0) -> Operation | None:
    """The op that made tile `v`: through waits, loop-carried values and if results to the
    wgmma (or other op) that computed it."""
    if depth > 16:
        return None
    if isinstance(v, BlockArgument):
        loop = v.block.parent_op()
        if isinstance(loop, scf.ForOp) and v.index > 0:
            return _origin(loop.body.block.last_op.operands[v.index - 1], depth + 1) or loop
        return loop
    op = v.owner
    if isinstance(op, WgmmaWaitGroupOp):
        return _origin(op.operands[v.index], depth + 1) or op
    if isinstance(op, scf.ForOp | scf.IfOp):
        return _origin(op.regions[0].block.last_op.operands[v.index], depth + 1) or op
    return op


def branch_budget(br: BranchOp) -> int:
    """Registers a thread of `br` may use: its setmaxnreg value, else the launch's."""
    disp = br.parent_op()
    regs = br.regs if br.regs is not None else (disp.entry_regs() if isinstance(disp, DispatchOp) else MAX_REGS)
    return min(regs, MAX_REGS)


def estimate_branch(br: BranchOp) -> Estimate:
    """Registers per thread `br` needs at its peak (see the module docstring for the model)."""
    return _BranchLiveness(br).estimate(branch_budget(br))


def _describe(est: Estimate) -> str:
    br = est.branch
    where = f"the {br.role.data} branch (warps {br.first_warp} to {br.first_warp + br.num_warps})"
    limit = f"setmaxnreg {br.regs}" if br.regs is not None else "registers per thread at launch"
    msg = (f"ws-register-budget: {where} needs about {est.regs} registers per thread, above its budget of "
           f"{est.budget} ({limit}); ptxas will spill registers to local memory")
    if est.largest is not None and isinstance(est.largest.type, TensorType):
        t = est.largest.type
        shape = "x".join(str(s) for s in t.get_shape())
        msg += f". The {shape}x{t.element_type} tile alone takes {est.largest_regs} registers per thread"
        groups = max(1, br.num_warps // 4)
        msg += f" in {groups} warp group{'s' if groups > 1 else ''}: "
        disp = br.parent_op()
        computing = [b for b in (disp.body.block.ops if disp is not None else ()) if isinstance(b, BranchOp)
                     and b.role.data != "producer"]
        if len(computing) <= 1:  # one compute branch: more warps for it, or cooperative groups
            msg += (f"spread it over more warp groups (tile.num_warps = {2 * br.num_warps} on the kernel, "
                    "or ws-hopper{cooperative=2}) or use a smaller tile")
        else:  # the work is already split between warp groups (cooperative, or a schedule)
            msg += "give this warp group less of the work or use a smaller tile"
    return msg


def check_module(module: ModuleOp) -> list[Estimate]:
    """Estimate every warp-group branch, write `ws.regs_per_thread` on it and warn (at the op
    that made the largest live tile) where the estimate is above the budget."""
    out = []
    for br in [o for o in module.walk() if isinstance(o, BranchOp)]:
        est = estimate_branch(br)
        br.attributes[REGS_ATTR] = IntegerAttr(est.regs, i32)
        if est.spills:
            warning(est.at if est.at is not None and location_of(est.at) else br, _describe(est))
        out.append(est)
    return out


@dataclass(frozen=True)
class RegisterBudgetPass(ModulePass):
    """Estimate each nvgpu.wg.branch's registers per thread; warn, located, where it will spill.

    The estimate is written as `ws.regs_per_thread` on the branch; the warning is at the op
    that made the largest tile live at the peak, with the estimate and the setmaxnreg budget."""

    name = "ws-register-budget"
    remarks: bool = True  # say so when there is no branch to estimate (ws-hopper: False, it says why itself)

    def apply(self, ctx, op: ModuleOp) -> None:
        if not check_module(op):
            from wsdialects.transforms.partition import kernels, remark

            for k in kernels(op)[:1] if self.remarks else ():
                remark(k, "ws-register-budget: no nvgpu.wg.branch to estimate (run it after ws-lower-warp-groups)")
