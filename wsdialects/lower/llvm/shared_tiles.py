"""Thread-level lowering of tiles that live in shared memory (part of the LLVM emitter,
`kernel.Kernel` inherits these methods).

* Element access: a tile in a slot or a staging buffer is laid out as TMA writes it,
  rows of R = 32/64/128 bytes with the matching swizzle (the 16-byte chunk c of row r
  sits at chunk c ^ ((byte offset >> 7) & (R/16 - 1)), CUTLASS's Swizzle<log2(R/16), 4, 3>:
  `wsdialects.layout.swizzled` / `smem_offset`; the pattern repeats every 8 rows, R x 8
  bytes, so every tile base is a multiple of that). Per-element reads (`ev` of an `Smem`)
  load from the swizzled address, a per-thread base register plus the load's immediate
  offset (`shared_address.SharedAddress.smem_ref`);
  unswizzled tiles (row bytes not 32/64/128) are plain row-major.
* `nvgpu.smem.store` (a computed tile put through an aref): every thread writes its
  fragment elements, two adjacent columns per store, at the swizzled address of the
  slot, so a consumer's wgmma descriptors or per-element reads see the layout a TMA
  load would have produced. The `fence.proxy.async` after it is followed by a
  `bar.warp.sync` so that lane 0's per-warp arrival publishes the whole warp's stores.
* `tile.desc_load` left in a partition (its tile is computed with, not put into an
  aref): a TMA load into a staging buffer of its own with an mbarrier of its own:
  inside a loop the partition meets first (named barrier: every thread has read the
  last tile), one thread arms the barrier and issues the copy, every thread waits on
  the phase it tracks in a local variable; the tile is then an `Smem`. (Likewise a
  `tile.desc_store` inside a loop meets before it rewrites its staging buffer.)
* `warp_group.share` of a shared-memory tile along its rows: the same tile shifted by
  g * rows/G rows (no copy). The shift must be a multiple of the swizzle atom (8 rows)
  so the slice keeps the pattern and its wgmma descriptors need no base offset. Along
  its columns (a cooperative team's rows of an M-contiguous A) only whole column blocks
  are taken: the slice starts g * cols/G columns on, at a column block.
* `warp_group.gather` followed by group 0's `tile.desc_store`: every group writes its
  slice into group 0's staging buffer (in the layout `lower_desc_store` stages with),
  fences it for the async proxy, and all groups of the team meet on one named
  barrier (count = all their threads; ids after the per-branch ids 1..B); group 0's
  desc_store then only issues the TMA store. Inside a loop the team meets once more
  before writing, so no group overwrites the buffer while group 0 still stores it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from wsdialects.layout import BlockedLayout, column_blocks, layout_of, swizzle_bytes
from wsdialects.lower.llvm.shared_address import SharedAddress, at
from wsdialects.lower.llvm.types import Frag, Smem, bits_of, elem_of, is_float, llty, nbytes, prod, round_up, shape_of
from wsdialects.nvgpu import DispatchOp
from wsdialects.warp_group import GatherOp, ShareOp

SHARED_TILE_OPS = ("tile.desc_load", "warp_group.share", "warp_group.gather")
MAX_NAMED_BARRIER = 15  # bar.sync ids 0..15


@dataclass
class Staged:
    """A tile that the groups of a cooperative team have written to a staging buffer
    (laid out as `stage_tile` says: like a slot of the tile) and met on: the result of
    `warp_group.gather`."""
    addr: str


@dataclass
class _GatherPlan:
    stage_off: int  # group 0's desc_store staging buffer
    barrier_id: int  # the team's slices are written ("full": group 0 waits, the others arrive)
    threads: int  # all threads of the team
    in_loop: bool
    free_id: int | None  # in a loop: group 0's last store has read the buffer (the others wait)
    store: Operation  # group 0's tile.desc_store (its staging layout)


def in_loop(op: Operation) -> bool:
    """`op` sits in a loop inside its warp-group branch (it runs more than once)."""
    cur = op.parent_op()
    while cur is not None and cur.name != "nvgpu.wg.branch":
        if cur.name == "scf.for":
            return True
        cur = cur.parent_op()
    return False


class SharedTiles(SharedAddress):
    """Mixin of `kernel.Kernel` (uses its emitter state: smem, layout, vals, ...)."""

    # ------------------------------------------------------------------ planning
    def plan_shared_tiles(self, f: Operation) -> None:
        """Staging buffers and mbarriers of register desc_loads, gather teams; called once
        the slot buffers and desc_store stages have their offsets, before the mbarriers'
        (emits the mbarrier initialization in the entry block)."""
        self.load_stage: dict[Operation, tuple[int, int, int]] = {}
        self.gather_plan: dict[Operation, _GatherPlan] = {}
        loads = [o for o in f.walk() if o.name == "tile.desc_load"]
        for o in loads:
            t = o.results[0].type
            shp = shape_of(t)
            et = elem_of(t)
            if len(shp) != 2:
                self.fail(o, f"tile.desc_load of a {len(shp)}-D tile into registers: only 2-D tiles are lowered")
            row_bytes = shp[1] * nbytes(et)
            if row_bytes % 16:
                self.fail(o, f"tile.desc_load: a row of {row_bytes} bytes is not a multiple of 16 (TMA box)")
            swz = swizzle_bytes(row_bytes) or 0
            off = round_up(self.smem_end, 1024)
            self.smem_end = off + prod(shp) * nbytes(et)
            bar = round_up(self.smem_end, 8)
            self.smem_end = bar + 8
            self.load_stage[o] = (off, bar, swz)
        if loads:
            for o in loads:
                _, bar, _ = self.load_stage[o]
                addr = self.op(f"add i32 {self.smem}, {bar}", "bar")
                self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; @p mbarrier.init.shared::cta.b64 [$1], 1; }",
                         "r,r", [("i32", self.tid), ("i32", addr)])
            self.asm("fence.mbarrier_init.release.cluster;", "", [])
            self.named_barrier(0, None)
            # the phase each thread waits for next, one per staged load (promoted to registers)
            self.load_phase = {}
            for o in loads:
                ph = self.op("alloca i32", "phase")
                self.emit(f"store i32 0, ptr {ph}")
                self.load_phase[o] = ph
        for d in f.walk():
            if isinstance(d, DispatchOp):
                self._plan_gather_teams(d)

    def _plan_gather_teams(self, d: DispatchOp) -> None:
        branches = d.branches
        teams: list[list[tuple[Operation, list[GatherOp]]]] = []
        for br in branches:
            gs = [o for o in br.walk() if isinstance(o, GatherOp)]
            if not gs:
                continue
            g = gs[0].group.value.data
            if g == 0:
                teams.append([(br, gs)])
            elif teams and g == len(teams[-1]):
                teams[-1].append((br, gs))
            else:
                self.fail(gs[0], f"warp_group.gather: group {g} of {gs[0].groups.value.data} is not in the "
                                 "warp-group branch after its team's group "
                                 f"{g - 1} (cooperative groups must be consecutive partitions)")
        # 1..B: the branches' own named barriers; then those the IR names (ping-pong turns)
        named = [o.id.value.data for o in d.walk() if o.name in ("nvvm.barrier", "nvvm.barrier_arrive")]
        next_id = 1 + max([len(branches), *named])
        for team in teams:
            first = team[0][1][0]
            G = first.groups.value.data
            if len(team) != G:
                self.fail(first, f"warp_group.gather: {len(team)} warp-group branches gather, expected {G} groups")
            n = len(team[0][1])
            for br, gs in team:
                if len(gs) != n:
                    self.fail(gs[0], f"warp_group.gather: the groups of a team gather {n} and {len(gs)} tiles")
            looped = any(in_loop(o) for _, gs in team for o in gs)
            if next_id + looped > MAX_NAMED_BARRIER:
                self.fail(first, f"warp_group.gather: no named barrier left (ids 1..{next_id - 1} are the "
                                 f"branches' and the IR's, at most {MAX_NAMED_BARRIER})")
            bid, free = next_id, (next_id + 1 if looped else None)
            next_id += 1 + looped
            threads = sum(br.num_warps * 32 for br, _ in team)
            for k in range(n):
                ops = [gs[k] for _, gs in team]
                g0 = ops[0]
                for g, op in enumerate(ops):
                    if (op.group.value.data != g or op.groups.value.data != G
                            or op.axis.value.data != g0.axis.value.data
                            or _plain_shape(op.result.type) != _plain_shape(g0.result.type)):
                        self.fail(op, f"warp_group.gather: does not match gather {k} of group 0 "
                                      f"(group {g} of {G}, same axis and type expected)")
                uses = list(g0.result.uses)
                store = uses[0].operation if len(uses) == 1 else None
                if store is None or store.name != "tile.desc_store" or uses[0].index != len(store.operands) - 1:
                    self.fail(g0, "warp_group.gather is lowered only when group 0 stores the gathered tile with "
                                  "tile.desc_store (its one use)")
                for op in ops[1:]:
                    if list(op.result.uses):
                        self.fail(op, f"warp_group.gather: group {op.group.value.data}'s gathered tile is used; "
                                      "only group 0 holds the whole tile")
                for op in ops:
                    self.gather_plan[op] = _GatherPlan(self.stage_off[store], bid, threads, in_loop(op),
                                                       free if in_loop(op) else None, store)

    # ------------------------------------------------------------------ element access
    def smem_load(self, v: SSAValue, S, idx) -> str:
        """Element `idx` of the shared-memory tile `S` (the value of `v`), memoized."""
        key = (v, idx)
        hit = self.lookup(key)
        if hit is not None:
            return hit
        if len(S.shape) == 1 and not S.swizzle:  # a plain array
            addr, off = self.smem_ref(S, idx)
        elif len(S.shape) != 2:
            self.fail(v.owner if isinstance(v.owner, Operation) else self.func,
                      f"a {len(S.shape)}-D shared-memory tile cannot be read per element")
        else:
            addr, off = self.smem_ref(S, idx[0], idx[1])
        bits = bits_of(S.elem)
        c = {8: "h", 16: "h", 32: "r", 64: "l"}[bits]
        it = f"i{max(bits, 16)}"
        ld = {8: "u8", 16: "b16", 32: "b32", 64: "b64"}[bits]
        x = self.asm(f"ld.shared.{ld} $0, [$1{at(off)}];", f"={c},r", [("i32", addr)], it)
        if bits == 8:
            x = self.op(f"trunc i16 {x} to i8")
        if is_float(S.elem):
            x = self.op(f"bitcast i{bits} {x} to {llty(S.elem)}")
        self.memo[-1][key] = x
        return x

    def _as_bits(self, x: str, et) -> str:
        return self.op(f"bitcast {llty(et)} {x} to i{bits_of(et)}") if is_float(et) else x

    def store_row_slice(self, v: SSAValue, S, op: Operation) -> None:
        """A row slice of the accumulator (1-D, #layout.slice<dim = 1>) into the plain array
        `S`: the four lanes of a quad hold the same rows; lane 4q writes them."""
        et = elem_of(v.type)
        bits = bits_of(et)
        if bits not in (16, 32) or len(S.shape) != 1 or S.swizzle:
            self.fail(op, f"a row slice of {v.type} is stored into shared memory only as a plain array of "
                          "16- or 32-bit elements")
        L = self.layout
        quad_lane = self.op(f"and i32 {L.lane}, 3")
        first = self.op(f"zext i1 {self.op(f'icmp eq i32 {quad_lane}, 0')} to i32")
        for _, idx in self.slots(v.type, op):
            x = self._as_bits(self.ev(v, idx, None), et)
            addr, off = self.smem_ref(S, idx)
            self.asm(f"{{ .reg .pred p; setp.ne.b32 p, $0, 0; @p st.shared.b{bits} [$1{at(off)}], $2; }}",
                     f"r,r,{'h' if bits == 16 else 'r'}", [("i32", first), ("i32", addr), (f"i{bits}", x)])

    def blocked_words(self, S, idxs: list) -> list[list[int]]:
        """The elements of a #layout.blocked tile (`idxs`, slot order) grouped by four that lie
        side by side in `S`: per 4 x 4 block, the four stored rows (the block's rows, or its
        columns where `S` is transposed), each four slots in stored order."""
        out = []
        for b in range(0, len(idxs), 16):
            if S.trans:  # stored row = the block's column j: slots i * 4 + j, i = 0..3
                out += [[b + 4 * i + j for i in range(4)] for j in range(4)]
            else:
                out += [[b + 4 * i + j for j in range(4)] for i in range(4)]
        return out

    def load_blocked(self, o: Operation, blocks: range | None = None) -> None:
        """`nvgpu.smem.load` of an 8-bit tile into #layout.blocked: one 32-bit load per four
        elements side by side in the slot (`blocked_words`), its bytes the elements; `blocks`:
        only those 4 x 4 blocks (a copy loads each block right before storing it)."""
        v = o.results[0]
        S = self.vals.get(o.operands[0])
        if not isinstance(S, Smem) or bits_of(S.elem) != 8:
            self.fail(o, "nvgpu.smem.load into #layout.blocked reads an 8-bit tile of a slot or staging buffer")
        idxs = [idx for _, idx in self.slots(v.type, o)]
        for group in self.blocked_words(S, idxs):
            if blocks is not None and group[0] // 16 not in blocks:
                continue
            addr, off = self.smem_ref(S, *idxs[group[0]])
            w = self.asm(f"ld.shared.b32 $0, [$1{at(off)}];", "=r,r", [("i32", addr)], "i32")
            for k, s in enumerate(group):
                x = self.op(f"trunc i32 {self.op(f'lshr i32 {w}, {8 * k}') if k else w} to i8")
                self.byte_src[x] = (w, k)
                self.memo[-1][(v, idxs[s])] = x
        if blocks is None:
            self.vals[v] = Frag([self.memo[-1][(v, idx)] for idx in idxs])

    def store_blocked(self, v: SSAValue, S, op: Operation) -> None:
        """A #layout.blocked 8-bit tile into `S`: one 32-bit store per four elements side by
        side there (a transposing copy's bytes regrouped in registers)."""
        if bits_of(elem_of(v.type)) != 8:
            self.fail(op, "a #layout.blocked tile is stored into shared memory only with 8-bit elements")
        slots = self.slots(v.type, op)
        idxs = [idx for _, idx in slots]
        load = v.owner if isinstance(v.owner, Operation) and v.owner.name == "nvgpu.smem.load" else None
        copy = load is not None and v not in self.vals  # read block by block here (`_stored_next`)
        if copy:
            # the buffer's address, opaque to LLVM here: the thread's base is computed in the
            # copy, not hoisted out of the loop (each store: an xor of it and an immediate offset)
            addr = self.asm("mov.b32 $0, $1;", "=r,r", [("i32", S.addr)], "i32")
            S = Smem(addr, S.shape, S.elem, S.swizzle, S.trans, S.block_bytes, S.align)
        for group in self.blocked_words(S, idxs):
            if copy and group[0] % 16 == 0 and self.lookup((v, idxs[group[0]])) is None:
                self.load_blocked(load, range(group[0] // 16, group[0] // 16 + 1))
            xs = [self._as_bits(self.ev(v, idxs[s], s), elem_of(v.type)) for s in group]
            src = [self.byte_src.get(x) for x in xs]
            if all(src):  # bytes of loaded words (a copy): three byte permutes
                (a, ka), (b, kb), (c, kc), (d, kd) = src
                lo = self.asm(f"prmt.b32 $0, $1, $2, {hex(ka | (4 + kb) << 4)};", "=r,r,r", [("i32", a), ("i32", b)], "i32")
                hi = self.asm(f"prmt.b32 $0, $1, $2, {hex(kc | (4 + kd) << 4)};", "=r,r,r", [("i32", c), ("i32", d)], "i32")
                w = self.asm("prmt.b32 $0, $1, $2, 0x5410;", "=r,r,r", [("i32", lo), ("i32", hi)], "i32")
            else:
                w = "0"
                for k, x in enumerate(xs):
                    b = self.op(f"zext i8 {x} to i32")
                    w = self.op(f"or i32 {w}, {self.op(f'shl i32 {b}, {8 * k}') if k else b}")
            addr, off = self.smem_ref(S, *idxs[group[0]])
            self.asm(f"st.shared.b32 [$0{at(off)}], $1;", "r,r", [("i32", addr), ("i32", w)])

    def store_fragment(self, v: SSAValue, S, op: Operation, shift: tuple[int, int] = (0, 0)) -> None:
        """Every thread writes its fragment elements of tile `v` into `S` (its layout) at
        their index + `shift` (rows, columns), two adjacent columns per store."""
        if len(shape_of(v.type)) == 1:
            return self.store_row_slice(v, S, op)
        if isinstance(layout_of(v.type), BlockedLayout) and shift == (0, 0):
            return self.store_blocked(v, S, op)
        if self.is_transpose_copy(v.type) and shift == (0, 0):
            return self.store_transpose_copy(v, S, op)
        et = elem_of(v.type)
        bits = bits_of(et)
        slots = self.slots(v.type, op)
        for s in range(0, len(slots), 2):  # slots s, s + 1: columns c, c + 1 (c even) of one row
            (_, i0), (_, i1) = slots[s], slots[s + 1]
            x0 = self._as_bits(self.ev(v, i0, s), et)
            x1 = self._as_bits(self.ev(v, i1, s + 1), et)
            (rr, rc), (cr, ccol) = i0
            addr, off = self.smem_ref(S, (rr, rc + shift[0]), (cr, ccol + shift[1]))
            if bits == 32:
                self.asm(f"st.shared.v2.b32 [$0{at(off)}], {{$1, $2}};", "r,r,r",
                         [("i32", addr), ("i32", x0), ("i32", x1)])
                continue
            if bits == 64:
                self.asm(f"st.shared.v2.b64 [$0{at(off)}], {{$1, $2}};", "r,l,l",
                         [("i32", addr), ("i64", x0), ("i64", x1)])
                continue
            pt = f"i{2 * bits}"
            lo = self.op(f"zext i{bits} {x0} to {pt}")
            hi = self.op(f"shl {pt} {self.op(f'zext i{bits} {x1} to {pt}')}, {bits}")
            pk = self.op(f"or {pt} {lo}, {hi}")
            self.asm(f"st.shared.b{2 * bits} [$0{at(off)}], $1;", f"r,{'h' if bits == 8 else 'r'}", [("i32", addr), (pt, pk)])

    # ------------------------------------------------------------------ ops
    def lower_smem_store(self, o: Operation) -> None:
        if self.layout is None:
            self.fail(o, "nvgpu.smem.store outside a warp-group branch cannot be lowered")
        self.store_fragment(o.value, self.slot_tile(o.buffer, o.index), o)

    def lower_shared_tile_op(self, o: Operation) -> None:
        if o.name == "tile.desc_load":
            return self.lower_staged_load(o)
        if o.name == "warp_group.share":
            return self.lower_share(o)
        return self.lower_gather(o)

    def lower_staged_load(self, o: Operation) -> None:
        L = self.layout
        if L is None:
            self.fail(o, "tile.desc_load outside a warp-group partition cannot be lowered (run ws-hopper)")
        stage_off, bar_off, swz = self.load_stage[o]
        _, dptr, dtt, pidx = self.vals[o.desc]
        self.use_desc(o, pidx, swz)
        t = o.results[0].type
        shp, et = shape_of(t), elem_of(t)
        self.use_box(o, pidx, (1,) * (len(o.indices) - len(shp)) + tuple(shp))
        stage = self.op(f"add i32 {self.smem}, {stage_off}", "stage")
        bar = self.op(f"add i32 {self.smem}, {bar_off}", "bar")
        if in_loop(o):  # every thread has read the tile this load brought last time
            self.named_barrier(L.barrier_id, L.threads)
        coords = [self.scalar(x) for x in o.indices][::-1]
        cl = ", ".join(f"${4 + i}" for i in range(len(coords)))
        self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; "
                 f"@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$3], {prod(shp) * nbytes(et)}; "
                 f"@p cp.async.bulk.tensor.{len(coords)}d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 f"[$1], [$2, {{{cl}}}], [$3]; }}",
                 ",".join(["r", "r", "l", "r"] + ["r"] * len(coords)),
                 [("i32", L.tid_in_part), ("i32", stage), ("i64", self.op(f"ptrtoint ptr {dptr} to i64")),
                  ("i32", bar)] + [("i32", c) for c in coords])
        ph_ptr = self.load_phase[o]
        ph = self.op(f"load i32, ptr {ph_ptr}")
        self.wait(bar, ph)
        self.emit(f"store i32 {self.op(f'xor i32 {ph}, 1')}, ptr {ph_ptr}")
        self.vals[o.results[0]] = Smem(stage, tuple(shp), et, swz or None, align=1024)

    def lower_share(self, o: ShareOp) -> None:
        S = self.vals.get(o.src)
        g, G, axis = o.group.value.data, o.groups.value.data, o.axis.value.data
        if not isinstance(S, Smem):
            self.fail(o, "warp_group.share of a tile in registers is not lowered: the shared tile must be an aref "
                         "slot or a TMA-loaded tile in shared memory")
        row_axis = 1 if S.trans else 0
        n = S.shape[axis] // G
        if axis != row_axis:
            # along the contiguous dimension: whole column blocks (an M-contiguous A's rows of M)
            eb = nbytes(S.elem)
            if not (S.swizzle and S.block_bytes and (n * eb) % S.swizzle == 0):
                self.fail(o, "warp_group.share along the contiguous dimension of a shared-memory tile is lowered "
                             f"only in whole column blocks of its {S.swizzle or 0}B swizzle (a slice of "
                             f"{n * eb} bytes of a row is no tile of the same layout)")
            addr = self.op(f"add i32 {S.addr}, {g * n * eb // S.swizzle * S.block_bytes}", "share") if g else S.addr
            shape = list(S.shape)
            shape[axis] = n
            self.vals[o.result] = Smem(addr, tuple(shape), S.elem, S.swizzle, S.trans, S.block_bytes)
            return
        row_bytes = S.row_stride
        atom = 8 if S.swizzle else 1
        if (g * n) % atom:
            self.fail(o, f"warp_group.share: group {g}'s slice starts at row {g * n}, not a multiple of the "
                         f"{S.swizzle}B swizzle atom (8 rows of {row_bytes} bytes): the slice would not keep "
                         "the swizzle pattern")
        # the same rows of every column block: the slice keeps its parent's block stride
        addr = self.op(f"add i32 {S.addr}, {g * n * row_bytes}", "share") if g else S.addr
        shape = list(S.shape)
        shape[axis] = n
        self.vals[o.result] = Smem(addr, tuple(shape), S.elem, S.swizzle, S.trans, S.block_bytes)

    def lower_gather(self, o: GatherOp) -> None:
        L = self.layout
        plan = self.gather_plan.get(o)
        if L is None or plan is None:
            self.fail(o, "warp_group.gather outside a cooperative warp-group branch cannot be lowered")
        src = o.src
        shp = shape_of(src.type)
        g, axis = o.group.value.data, o.axis.value.data
        if len(shp) != 2:
            self.fail(o, f"warp_group.gather of a {len(shp)}-D tile: only 2-D tiles are lowered")
        if plan.in_loop:
            # The buffer is free once group 0's store of the last tile has read it: group 0's
            # storing thread waits for that here (tma_store leaves it running: the store reads
            # while this tile's main loop runs); its group learns it at its own barrier and tells
            # the other groups through `free`. A handshake (one side bar.sync, the other
            # bar.arrive) on each barrier, as for the ping-pong turns: compute-sanitizer's
            # synccheck reports two groups' bar.sync on one barrier from different code
            # (tools/probes/sanitizer_probes.cu).
            if g == 0:
                self.wait_store_reads()
                self.named_barrier(L.barrier_id, L.threads)
                self.named_barrier(plan.free_id, plan.threads, arrive=True)
            else:
                self.named_barrier(plan.free_id, plan.threads)
        stage = self.op(f"add i32 {self.smem}, {plan.stage_off}", "stage")
        shift = g * shp[axis]
        # row-major like lower_desc_store's staging; this group's slice at its offset
        stage_S = self.stage_tile(plan.store, stage)  # group 0's desc_store stages the gathered tile like this
        self.store_fragment(src, stage_S, o, (0, shift) if axis else (shift, 0))
        self.asm("fence.proxy.async.shared::cta;", "", [])
        # group 0 (which stores) waits for the slices; the other groups arrive
        self.named_barrier(plan.barrier_id, plan.threads, arrive=g != 0)
        self.vals[o.result] = Staged(stage)

    def wait_store_reads(self) -> None:
        """The storing thread waits until its TMA stores have read their staging buffers
        (before the buffer is written again, and before the branch ends)."""
        self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; @p cp.async.bulk.wait_group.read 0; }",
                 "r", [("i32", self.layout.tid_in_part)])

    def tma_store(self, o: Operation, S) -> None:
        """One thread of the partition stores the staged tile `S` with TMA, one box per
        column block of the staging layout, and commits the stores without waiting: the
        thread waits for them to have read `S` (`wait_store_reads`) only before `S` is
        written again or the branch ends (the writes to global memory complete on their
        own before the grid does). A reducing `tile.desc_store` (`reduce_kind`) issues
        `cp.reduce.async.bulk.tensor ... .<kind>.tile` instead, which combines each element with
        global memory (the element type is the descriptor's)."""
        kind = getattr(o, "reduce_kind", None)
        copy = "cp.async.bulk.tensor" if kind is None else "cp.reduce.async.bulk.tensor"
        mode = "" if kind is None else f".{kind}.tile"
        _, dptr, _, pidx = self.vals[o.operands[0]]
        blocks = column_blocks(S.shape[1] * nbytes(S.elem), S.swizzle) if S.swizzle else 1
        width = S.shape[1] // blocks
        self.use_desc(o, pidx, S.swizzle)
        self.use_box(o, pidx, (1,) * (len(o.operands) - 4) + (S.shape[0], width))
        coords = [self.scalar(x) for x in o.operands[1:-1]][::-1]
        cl = ", ".join(f"${3 + i}" for i in range(len(coords)))
        dp = self.op(f"ptrtoint ptr {dptr} to i64")
        for b in range(blocks):
            src = self.op(f"add i32 {S.addr}, {b * S.block_bytes}") if b else S.addr
            inner = self.op(f"add i32 {coords[0]}, {b * width}") if b else coords[0]
            self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; "
                     f"@p {copy}.{len(coords)}d.global.shared::cta{mode}.bulk_group [$1, {{{cl}}}], [$2]; }}",
                     ",".join(["r", "l", "r"] + ["r"] * len(coords)),
                     [("i32", self.layout.tid_in_part), ("i64", dp), ("i32", src)]
                     + [("i32", x) for x in [inner, *coords[1:]]])
        self.asm("{ .reg .pred p; setp.eq.u32 p, $0, 0; @p cp.async.bulk.commit_group; }",
                 "r", [("i32", self.layout.tid_in_part)])
        self.stores_pending = True


def _plain_shape(t) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()
