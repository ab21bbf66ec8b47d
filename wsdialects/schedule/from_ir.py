"""Dependence graphs from a tile kernel's loop body.

Nodes are the tile-level ops of the kernel's ``scf.for`` body (ops producing
tensors, and tile stores); scalar index arithmetic is left out, and layout-only
ops (transpose, broadcast, ...) are looked through so that their consumers
depend on their producers directly.  A use of a loop-carried value becomes an
edge of distance 1 from the op that yields it.  Costs, units, footprints,
variable latency and blocking come from the machine model; delays are in
cycles, so the graph is usually normalized (§5.2) before scheduling.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from . import tensor_memory
from .bounds import MAX_RESERVATION
from .graph import MAX_VALUE, Edge, Graph, GraphError, Op, Warps
from .machine import Machine, TileInfo, load_machine, replicated
from .tensor_memory import RawEdge


def error_at(op: Operation, message: str) -> GraphError:
    """A :class:`GraphError` located at ``op`` (or its closest located ancestor)."""
    from wsdialects.diagnostics import location_of

    loc = location_of(op)
    exc = GraphError(message) if loc is None else GraphError(message, loc[1], loc[2], file=loc[0])
    exc.op = op  # for a remark at the op (ws-schedule's fallback)
    return exc


def warp_groups_of(fn: func.FuncOp) -> int:
    """Compute warp groups of a kernel: ``tile.num_warps / 4`` (at least one;
    4 warps when the attribute is absent).  A value that is not a positive
    integer is bad input: a located :class:`~wsdialects.diagnostics.WsError`."""
    from xdsl.dialects.builtin import IntegerAttr

    from wsdialects.diagnostics import error_at as ws_error_at

    attr = fn.attributes.get("tile.num_warps")
    if attr is None:
        return 1
    if not isinstance(attr, IntegerAttr) or not 1 <= attr.value.data <= 1024:
        raise ws_error_at(fn, f"'tile.num_warps' must be an integer from 1 to 1024 (warps per program), got {attr}")
    return max(1, attr.value.data // 4)


def _tile(t) -> TileInfo | None:
    if not isinstance(t, TensorType):
        return None
    shape = tuple(int(d) for d in t.get_shape())
    et = t.element_type
    bits = getattr(et, "bitwidth", None)
    if bits is None:
        name = str(et)
        bits = int("".join(ch for ch in name if ch.isdigit()) or 32)
    return TileInfo(shape, int(bits))


def find_kernel_loop(module: ModuleOp, kernel: str | None = None) -> tuple[func.FuncOp, scf.ForOp]:
    """The ``tile.kernel`` function (by name, or the only one) and its top-level loop."""
    kernels = [op for op in module.walk() if isinstance(op, func.FuncOp) and "tile.kernel" in op.attributes]
    if kernel is not None:
        kernels = [k for k in kernels if k.sym_name.data == kernel]
    if not kernels:
        raise GraphError("no function with the 'tile.kernel' attribute" + (f" named '{kernel}'" if kernel else ""))
    if len(kernels) > 1:
        raise error_at(kernels[1], "several tile kernels; name one")
    fn = kernels[0]
    loops = [op for op in fn.body.block.ops if isinstance(op, scf.ForOp)]
    if len(loops) != 1:
        raise error_at(fn, f"kernel '{fn.sym_name.data}' needs exactly one top-level scf.for, found {len(loops)}")
    check_loop(loops[0])
    return fn, loops[0]


def graph_from_module(module: ModuleOp, arch: str | Machine = "h100", kernel: str | None = None,
                      warp_groups: int | None = None) -> Graph:
    """Build the loop dependence graph of a kernel, in cycles of the machine model."""
    fn, loop = find_kernel_loop(module, kernel)
    return graph_of_loop(fn, loop, arch, warp_groups).graph


def check_loop(loop: scf.ForOp) -> None:
    """The body must be straight-line code (a singly-nested loop)."""
    for op in loop.body.walk():
        if op is not loop and isinstance(op, (scf.ForOp, scf.IfOp)):
            raise error_at(op, "the loop body must be free of nested control flow (a singly-nested loop)")


@dataclass
class LoopGraph:
    """A loop's dependence graph and how it maps back to the IR."""

    graph: Graph
    names: dict[Operation, str]  # node name of each body op that is a node
    index_ops: set[Operation]  # nodes computed from the induction variable alone (rematerialized)
    groups_per_warp: int  # warp groups that one scheduled warp stands for (cooperative M split)
    pingpong: bool = False  # those groups are a ping-pong team (offset in time), not in lockstep
    partner_latency: bool = False  # a member's ALU / SFU ops priced as measured beside its partner


def _data_values(body: Block, yield_op: scf.YieldOp) -> set[SSAValue]:
    """Body values that depend on memory read in the loop (loads, possibly
    through iteration arguments).  The rest is index arithmetic: a function of
    the induction variable and loop invariants."""
    data: set[SSAValue] = set()
    changed = True
    while changed:
        changed = False
        for op in body.ops:
            if op is yield_op:
                continue
            reads = op.name in _LOADS or any(o in data for o in op.operands)
            if reads:
                for r in op.results:
                    if r not in data:
                        data.add(r)
                        changed = True
        for arg, yielded in zip(body.args[1:], yield_op.operands):
            if yielded in data and arg not in data:
                data.add(arg)
                changed = True
    return data


_LOADS = ("tile.desc_load", "tile.load")
WGMMA_M = 64  # rows of one warp group's tensor-core MMA (wgmma m64nNk16)


def _splits_rows(tiles: list[tuple[str, TileInfo]], s: int) -> bool:
    """Every register tile splits along M into s parts or is one row (replicated), dot
    results into parts of at least one wgmma's 64 rows."""
    return not any(not t.shape or (t.shape[0] % s and not (kind != "tile.dot" and replicated(t)))
                   or (kind == "tile.dot" and t.shape[0] // s < WGMMA_M) for kind, t in tiles)


def cooperative_split(machine: Machine, tiles: list[tuple[str, TileInfo]], groups: int,
                      held_after: list[TileInfo] = ()) -> int:
    """How many warp groups must share each register tile so that every one fits
    a thread's register budget: 1 when all fit one group; else the least s > 1
    dividing ``groups`` that splits every register tile along M (rows) into s
    parts, dot results into parts of at least one wgmma's 64 rows.  With s, the
    compute warp groups act as ``groups // s`` cooperative teams (Tawa §IV-A, the
    M split ws-cooperative makes: 128x256 -> 2 x 64x256), each thread holding
    1/s of every tile.  1 when no split fits (the solver then reports that no
    schedule meets the register limit).

    ``held_after`` are the loop's results that the code after the loop uses: one warp
    group (or team) holds them all at once there, whichever groups computed them, so
    together they must fit too (a gated MLP's two 128x128 accumulators: 2 x 128
    registers in one group, a team of 2 instead)."""
    if not tiles:
        return 1
    need = max(max(machine.regs_per_thread(t) for _, t in tiles),
               sum(machine.regs_per_thread(t) for t in held_after))
    if need <= machine.reg_limit(groups):
        return 1
    for s in range(2, groups + 1):
        if groups % s:
            continue
        if not _splits_rows(tiles, s):
            continue
        if -(-need // s) <= machine.reg_limit(groups):
            return s
    return 1


def pingpong_split(tiles: list[tuple[str, TileInfo]], groups: int, least: int) -> int | None:
    """The team size of a ping-pong split: the least s >= max(2, least) dividing
    ``groups`` whose row split every register tile allows (dot results keep at
    least one wgmma's 64 rows), else None."""
    for s in range(max(2, least), groups + 1):
        if groups % s == 0 and _splits_rows(tiles, s):
            return s
    return None


def contracts_rows(body: Block, machine: Machine, is_node) -> Operation | None:
    """A dot of the loop whose B operand (K x N) is a register tile computed in the loop
    (attention backward's dQ^T = K^T dS^T), if any.  A team splitting the rows splits that
    operand along the dot's K: each member's MMA makes a partial sum over its own rows.  On
    Hopper the accumulator is the issuing group's registers and the partial sums would need a
    reduction across groups (ws-cooperative refuses such a dot), so no team splits there; on a
    machine with tensor memory each member's MMA accumulates into its own tensor-memory tile,
    which the member reads and reduces like any result."""
    for op in body.ops:
        if op.name != "tile.dot" or len(op.operands) < 2:
            continue
        v = op.operands[1]
        while isinstance(v, OpResult) and machine.is_view(v.op.name) and v.op.operands:
            v = v.op.operands[0]
        if (isinstance(v, OpResult) and v.op.parent_block() is body and is_node(v.op)
                and v.op.name not in _LOADS and machine.result_memory(v.op.name) == "regs"):
            return op
    return None


def graph_of_loop(fn: func.FuncOp, loop: scf.ForOp, arch: str | Machine = "h100",
                  warp_groups: int | None = None, pingpong: bool = False,
                  partner_latency: bool = False, reg_limit: int | None = None) -> LoopGraph | None:
    """The dependence graph of ``loop`` (a top-level loop of kernel ``fn``), with
    the node name of each body op that is a node.

    Nodes computed from the induction variable and loop invariants alone
    (causal masks, column offsets) are index arithmetic: a warp that needs one
    recomputes it instead of receiving it, so they carry no cross-warp spill
    cost (and the IR hand-off leaves them unassigned, so that every partition
    using them computes its own copy).

    Register footprints are per thread of one warp group; when a register tile
    does not fit one group's budget, the compute groups are modelled as
    cooperative teams that split every tile along M (:func:`cooperative_split`).

    With ``pingpong``, the compute groups are modelled as ping-pong teams
    (:func:`pingpong_split`): each team member runs the whole loop body on its
    own rows, at 1/s of each compute op's cost, offset from the others by a
    fraction of the II (``Warps.pingpong``); None when no such split exists.  With
    ``partner_latency`` too, a member's ALU and SFU ops take the machine's
    ``chain_latency`` factor for a partner beside it (:meth:`Machine.chain_factor`).

    On a machine with tensor memory (Blackwell) the dots' results hold tensor memory instead
    of registers, and loads / stores between it and registers become nodes of their own
    (:mod:`.tensor_memory`); dots, issued by one thread, may go on an issuer warp
    (``Warps.issuer``).  ``reg_limit`` replaces the machine's register budget per thread of a
    compute warp group (a reduced budget, as Twill §6.3.2 tries)."""
    machine = arch if isinstance(arch, Machine) else load_machine(arch)
    check_loop(loop)
    body: Block = loop.body.block
    yield_op = body.last_op
    assert isinstance(yield_op, scf.YieldOp)
    data = _data_values(body, yield_op)

    def is_node(op: Operation) -> bool:
        if op is yield_op or machine.is_view(op.name):
            return False
        if any(_tile(r.type) for r in op.results):
            return True
        return op.name in ("tile.desc_store", "tile.store")

    groups = warp_groups or warp_groups_of(fn)
    reg_tiles = [(op.name, t) for op in body.ops if is_node(op) and machine.result_memory(op.name) == "regs"
                 for t in (_tile(r.type) for r in op.results) if t]
    # (a result in tensor memory, a Blackwell accumulator, is read after the loop in pieces)
    held_after = [t for r, y in zip(loop.results, yield_op.operands) if r.uses for t in [_tile(r.type)]
                  if t and not (isinstance(y, OpResult) and machine.result_memory(y.op.name) == "tmem")]
    # a team's partial sums over its rows stay in registers where there is no tensor memory
    no_team = not machine.tensor_memory and contracts_rows(body, machine, is_node) is not None
    split = 1 if no_team else cooperative_split(machine, reg_tiles, groups, held_after)
    if pingpong:
        split = None if no_team else pingpong_split(reg_tiles, groups, split)
        if split is None:
            return None
    team = split if pingpong else 1
    partner = team > 1 and partner_latency  # a ping-pong partner runs the same body beside each member

    names: dict[Operation, str] = {}
    tiles: dict[str, TileInfo] = {}  # each node's (first) result tile
    index_ops: set[Operation] = set()
    used: set[str] = set()
    ops: list[Op] = []
    for op in body.ops:
        if not is_node(op):
            continue
        hint = op.results[0].name_hint if op.results and op.results[0].name_hint else op.name.split(".")[-1]
        name, k = hint, 1
        while name in used:
            k += 1
            name = f"{hint}.{k}"
        used.add(name)
        names[op] = name
        results = [t for t in (_tile(r.type) for r in op.results) if t]
        operands = [t for t in (_tile(o.type) for o in op.operands) if t]
        if any(d < 0 for t in results + operands for d in t.shape):
            raise error_at(op, "a tile of dynamic shape cannot be scheduled")
        cost = machine.op_cost(op.name, results, operands)
        if cost.cycles > MAX_RESERVATION:
            raise error_at(op, f"'{op.name}' would occupy {cost.unit} for {cost.cycles} cycles on {machine.name}, "
                               f"more than the scheduler models ({MAX_RESERVATION}); the tile is too large")
        whole = bool(results) and all(replicated(t) for t in results)  # every member computes all of it
        cycles = cost.cycles if cost.variable_latency or whole else -(-cost.cycles // team)  # a member's rows
        uses = {cost.unit: [1] * cycles} if cost.unit and cycles else {}
        ready = max(1, round(cycles * machine.chain_factor(cost.unit, partner))) if cycles else 0
        memory = machine.result_memory(op.name)
        footprint = sum(-(-machine.regs_per_thread(t) // (1 if replicated(t) else split)) for t in results) \
            if memory == "regs" else 0
        smem = sum(t.bytes for t in results) if memory == "smem" else 0
        tmem = sum(t.bytes for t in results) if memory == "tmem" else 0
        spill = sum(machine.spill_cycles(t) for t in results) if memory == "regs" else 0
        if results:
            tiles[name] = results[0]
        if op.name not in _LOADS and op.results and not any(r in data for r in op.results):
            index_ops.add(op)
            spill = 0
        if max(footprint, smem, spill) > MAX_VALUE:
            raise error_at(op, f"the result of '{op.name}' is too large to schedule ({smem or footprint} "
                               f"{'bytes' if smem else 'registers per thread'})")
        ops.append(Op(name=name, uses=uses, latency=ready + cost.extra_latency, regs=footprint, smem=smem,
                      variable_latency=cost.variable_latency, spill_cost=spill, kind=op.name, tmem=tmem,
                      single_thread=op.name in machine.single_thread_issue))
    if not ops:
        raise error_at(loop, "the loop body has no tile-level operations")
    latency = {o.name: o.cycles for o in ops}

    def producers(value: SSAValue, distance: int, seen: frozenset = frozenset()) -> list[tuple[str, int]]:
        """(node, iteration distance) pairs that a value comes from."""
        if isinstance(value, OpResult):
            owner = value.op
            if owner in names:
                return [(names[owner], distance)]
            if owner.parent_block() is body:  # a view or scalar op: look through its tile operands
                out = []
                for operand in owner.operands:
                    if _tile(operand.type) or owner.name.startswith("tile."):
                        out += producers(operand, distance, seen)
                return out
            return []
        if isinstance(value, BlockArgument) and value.block is body and value.index >= 1:
            if value.index in seen:
                return []
            yielded = yield_op.operands[value.index - 1]
            return producers(yielded, distance + 1, seen | {value.index})
        return []

    # A dot accumulating onto its own result of an earlier iteration waits for the unit, not for
    # the result: the tensor pipe chains MMAs into one accumulator back to back (a GEMM main loop
    # keeps one in flight), so that recurrence costs the dot's occupancy, not its latency.
    occupancy = {o.name: max((len(u) for u in o.uses.values()), default=0) for o in ops}

    def delay(src: str, dst: str, op: Operation, operand: SSAValue) -> int:
        if src == dst and op.name == "tile.dot" and operand is op.operands[2] and occupancy[src]:
            return occupancy[src]
        return latency[src]

    edges: list[RawEdge] = []
    seen_edges: set[tuple[str, str, int]] = set()
    for op in body.ops:
        if op not in names:
            continue
        dst = names[op]
        for i, operand in enumerate(op.operands):
            role = ("a", "b", "acc")[i] if op.name == "tile.dot" and i < 3 else None
            for src, dist in producers(operand, 0):
                key = (src, dst, dist)
                if key in seen_edges:
                    continue
                seen_edges.add(key)
                src_kind = next(o.kind for o in ops if o.name == src)
                edges.append(RawEdge(src, dst, delay(src, dst, op, operand), dist,
                                     src_kind in machine.blocking_from, role))
    if machine.tensor_memory:  # Blackwell: tcgen05.ld / tcgen05.st between TMEM and registers
        ops, graph_edges = tensor_memory.route(machine, ops, edges, tiles, used, team, split)
    else:
        graph_edges = [Edge(e.src, e.dst, e.delay, e.distance, e.blocking) for e in edges]
    graph = Graph(units=dict(machine.units), ops=ops, edges=graph_edges,
                  warps=Warps(count=groups // split, reg_limit=reg_limit or machine.reg_limit(groups),
                              local_recurrences=True, pingpong=team,
                              issuer=bool(machine.single_thread_issue)),
                  smem_capacity=machine.smem_capacity, name=fn.sym_name.data,
                  tmem_capacity=machine.tmem_capacity)
    return LoopGraph(graph, names, index_ops, split, team > 1, partner)


def graph_from_file(path: str, arch: str = "h100", kernel: str | None = None) -> Graph:
    """Parse an ``.mlir`` file with :func:`wsdialects.parse_file` and build its
    graph.  Bad input raises :class:`~wsdialects.diagnostics.WsError` (already
    located: ``FILE:LINE:COL: error: ...``) or a located :class:`GraphError`."""
    import wsdialects

    return graph_from_module(wsdialects.parse_file(path), arch, kernel)
