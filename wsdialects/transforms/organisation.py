"""`ws-choose-organisation{arch=h100 tiles=N}`: decide per kernel how ws-hopper organises it
(persistence, a ping-pong team, ring and MMA depth, tile order, CTAs per SM) from a cost model.

`ws-hopper` runs it first for every option left at `auto` (the default), so a user who writes
`ws-hopper` with no options gets the organisation the model predicts fastest, and any option
written explicitly still wins. The decision is written on the kernel as the options it stands
for, and a remark gives the numbers the model compared:

    func.func @matmul(...) attributes {tile.kernel, tile.num_warps = 8 : i32,
        ws.organisation = {persistent = true, cooperative = 2 : i32, pingpong = true, depth = 4 : i32,
                           "mma-depth" = 1 : i32, "tile-group" = 8 : i32, "ctas-per-sm" = 1 : i32}}
    remark: ws-choose-organisation: persistent, a ping-pong team of 2 groups, ...

The model prices one output tile on one SM, in cycles, from what the kernel is (the machine
model `wsdialects/schedule/machines/<arch>.json` gives the rates):

- its K loop (the loop with the most tensor-core work): per iteration the dots' tensor-core
  cycles (`tc`, twice the rate for 8-bit operands), the TMA loads' cycles (`tma`), the register
  work between the dots (`regs`: the softmax's exponentials on the SFU, its ALU ops) and the
  tensor-core work that waits for it (`tc_dep`, attention's P.V);
- its epilogue: the register work after the loop, the store staged through shared memory and
  the last wgmma's latency;
- a CTA's start (launch, barrier set-up, the first load's latency), which a persistent kernel
  pays once per SM and a kernel of one tile per CTA once per tile.

One consumer partition (its warp groups in lockstep) runs an iteration in
max(tc, tma, regs + tc_dep) (the softmax of one group and its P.V in sequence, the next QK^T
beside them); a ping-pong team of two groups in max(tc, tma, f * regs) + t, f the machine's
`chain_latency` beside a partner (one group's softmax under the other's MMAs, as in
FlashAttention-3) and t the turn: the groups' MMAs take turns, and a group waiting for its
turn with no register work of its own leaves part of the tensor core's time unused
(`TEAM_TURN` of the MMA time not covered by register work: a GEMM pays it in full, attention's
softmax covers it). Each group of a team does half the epilogue, one half under the partner's
MMAs (its last ones; in a persistent kernel the next tile's too). Register work prices every
elementwise op, a transcendental the machine model has no rule for (tanh) as one SFU op.
Two CTAs per SM overlap one CTA's epilogue and start with the other's loop, with rings in half
the shared memory and, per thread, 65536 / (2 x threads) registers: they are not considered
where the consumer needs more (ws-register-budget's estimate; ptxas would spill or refuse the
wgmma), nor beside a team. The ring gets enough slots to keep the loads' latency covered (at
least 4, at most 8; ws-hopper still takes fewer where they do not fit), one wgmma batch in
flight (two where one iteration's MMAs are shorter than a wgmma's latency).

The K loop's trip count is symbolic, so the model weighs 4 to 256 iterations and takes the
organisation whose worst loss against the best at any of them is least (a known constant trip
count is used as it is). The launch is assumed large (16 tiles per SM) unless `tiles=N` gives
it: a launch of no more tiles than the SMs hold gains nothing from a persistent loop, and stays
one tile per CTA. A persistent kernel orders its tiles in bands of 8 (L2 reuse) where one load
depends on the tile's x alone and another on its y alone, else in serpentine order. Where
`ws-schedule` planned a team (Twill's joint model: `ws.schedule = {cooperative = k, pingpong =
true}`), the team is the schedule's. A kernel without a tensor-core loop is left plain.

A kernel that already carries `ws.organisation` keeps it (the decision is IR: it can be written
or edited by hand).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, IntegerType, ModuleOp, TensorType, i32
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from wsdialects.diagnostics import WsError
from wsdialects.lower.register_budget import tile_regs
from wsdialects.nvgpu.types import smem_per_cta
from wsdialects.tile import NUM_WARPS_ATTR
from wsdialects.transforms.partition import kernels, remark

ORGANISATION_ATTR = "ws.organisation"
# The options the decision stands for, as ws-hopper spells them, and their type.
OPTIONS = {"persistent": bool, "cooperative": int, "pingpong": bool, "depth": int, "mma-depth": int,
           "tile-group": int, "ctas-per-sm": int}
# What ws-hopper builds with the model off (`auto=false`) or where there is nothing to organise.
FIXED = {"persistent": False, "cooperative": 1, "pingpong": False, "depth": 4, "mma-depth": 1, "tile-group": -1,
         "ctas-per-sm": 1}

SMS = 132  # SMs of the H100 / H200
# Cycles (SM clock) the machine model does not carry yet: a CTA's start before its first wgmma
# (launch, mbarrier set-up, setmaxnreg, descriptor prefetch) and a TMA load's latency under load.
# Fitted on the H200 to the gain of a persistent GEMM (128x256x64 tiles) over one tile per CTA at
# a 4-iteration K loop; tools/calibrate.py does not measure them.
CTA_START = 1400
CTA_LAUNCH = 300  # of which the SM cannot overlap with another CTA's work (block dispatch, barrier set-up)
LOAD_LATENCY = 1000
TILE_SWITCH = 100  # a persistent tile's own cost: the consumers' barrier, the next tile's indices
# A ping-pong team's turn, as a share of an iteration's MMA time: each group issues its MMAs
# only after the other passed it the turn (a named-barrier round trip between the groups), and a
# group with no register work of its own only waits meanwhile. Fitted on the H200 to the team's
# loss against one lockstep consumer on GEMMs at long K (6-10 % with 128x256 tiles and TMA-store
# epilogues, 0-3.5 % with 128x128 tiles).
TEAM_TURN = 0.08
PERSISTENT_SETUP = 50  # a persistent launch's extra arguments and loop set-up
SMEM_BYTES_PER_CYCLE = 128  # staging an output tile in shared memory
LARGE_TILES_PER_SM = 16  # a launch of unknown size: assumed large
TRIPS = (4, 16, 64, 256)  # K-loop iterations weighed when the trip count is symbolic
TIE = 0.005  # predictions closer than this are a tie: the simpler organisation wins
MAX_DEPTH = 8
# Math ops one MUFU (SFU) instruction computes per element (tanh.approx, sin.approx, ...).
SFU_MATH = ("math.tanh", "math.sin", "math.cos", "math.log", "math.sqrt")


@dataclass
class Profile:
    """What the model reads from one kernel (cycles are per SM)."""

    tc: float = 0.0  # tensor-core cycles of one K-loop iteration
    tc_dep: float = 0.0  # of which wait for register work of the same iteration
    tma: float = 0.0  # TMA cycles of one iteration (loads)
    regs: float = 0.0  # register work of one iteration (ALU + SFU)
    epilogue: float = 0.0  # register work after the loop, output staging, the last wgmma
    store_tma: float = 0.0  # the stores' TMA cycles (bandwidth; asynchronous)
    slot_bytes: int = 0  # one ring slot of the loop's loads
    once_bytes: int = 0  # loads outside the loop (one-shot rings)
    staging_bytes: int = 0  # TMA-store staging of every store (a persistent kernel's, ws-tma-store)
    desc_staging_bytes: int = 0  # of the stores that are TMA stores as written
    rows: int = 0  # the accumulator's rows (M)
    acc_regs: int = 0  # registers per thread of the tiles the K loop carries (its accumulators)
    groups: int = 1  # warp groups of the consumer
    trips: int | None = None  # a constant trip count, else None
    own_tile_loop: bool = False  # the K loop sits in a loop of the kernel's own (already persistent)
    has_loop: bool = False


def _tile(t: Attribute):
    from wsdialects.schedule.machine import TileInfo

    if not isinstance(t, TensorType):
        return None
    et = t.element_type
    bits = et.width.data if isinstance(et, IntegerType) else getattr(et, "bitwidth", 32)
    return TileInfo(tuple(t.get_shape()), int(bits))


def _aligned(n: int) -> int:
    return (n + 1023) // 1024 * 1024


def _dot_cycles(machine, op: Operation) -> float:
    a, acc = _tile(op.operands[0].type), _tile(op.results[0].type)
    c = machine.op_cost("tile.dot", [acc], [a, _tile(op.operands[1].type)]).cycles
    return c / 2 if a.bits == 8 else c  # 8-bit wgmma runs at twice the rate


def _reg_cycles(machine, op: Operation) -> float:
    """Cycles of an elementwise / reduction op on a tile (0 for views, scalars, memory ops). A math
    op the machine model has no rule for is priced as its hardware runs it: a transcendental
    (`SFU_MATH`) as math.exp2 (one MUFU instruction an element), any other (fma, abs, ...) as
    arithmetic."""
    on_tiles = any(isinstance(r.type, TensorType) for r in op.results)
    memory_or_view = op.name.startswith("tile.") and op.name != "tile.reduce"
    if not on_tiles or memory_or_view or machine.is_view(op.name) or op.name == "arith.constant":
        return 0.0
    name = op.name
    if machine.rule(name) is None and name.startswith("math."):
        name = "math.exp2" if name in SFU_MATH else "arith.mulf"
    cost = machine.op_cost(name, [t for r in op.results if (t := _tile(r.type))],
                           [t for o in op.operands if (t := _tile(o.type))])
    return float(cost.cycles) if cost.unit in ("ALU", "SFU") else 0.0


def _body_ops(loop: scf.ForOp):
    """The ops of one iteration (nested branches included, nested loops not)."""
    stack = list(loop.body.block.ops)
    while stack:
        o = stack.pop(0)
        yield o
        if not isinstance(o, scf.ForOp):
            for r in o.regions:
                for b in r.blocks:
                    stack.extend(b.ops)


def _in_loop(op: Operation, kernel: func.FuncOp) -> scf.ForOp | None:
    cur = op.parent_op()
    while cur is not None and cur is not kernel:
        if isinstance(cur, scf.ForOp):
            return cur
        cur = cur.parent_op()
    return None


def _constant(v) -> int | None:
    o = getattr(v, "op", None)
    if o is not None and o.name == "arith.constant" and isinstance(getattr(o, "value", None), IntegerAttr):
        return o.value.value.data
    return None


def profile(kernel: func.FuncOp, machine) -> Profile:
    """The model's view of `kernel`: its K loop, epilogue and the sizes that bound the choices."""
    p = Profile()
    loops = [o for o in kernel.body.walk() if isinstance(o, scf.ForOp)
             and any(x.name == "tile.dot" for x in _body_ops(o))]
    if not loops:
        return p
    main = max(loops, key=lambda lp: sum(_dot_cycles(machine, x) for x in _body_ops(lp) if x.name == "tile.dot"))
    p.has_loop = True
    p.own_tile_loop = _in_loop(main, kernel) is not None
    lb, ub, st = _constant(main.lb), _constant(main.ub), _constant(main.step)
    if None not in (lb, ub, st) and st > 0:
        p.trips = max(math.ceil((ub - lb) / st), 0)
    register_made = set()  # values computed by register work in this iteration
    for o in _body_ops(main):
        if o.name == "tile.dot":
            c = _dot_cycles(machine, o)
            p.tc += c
            acc = o.results[0].type
            p.rows = max(p.rows, acc.get_shape()[0])
            if any(v in register_made for v in o.operands[:2]):
                p.tc_dep += c
            register_made.update(o.results)
        elif o.name in ("tile.desc_load", "tile.load"):
            t = _tile(o.results[0].type)
            p.tma += machine.op_cost(o.name, [t], []).cycles
            p.slot_bytes += _aligned(t.bytes)
        elif o.name in ("tile.desc_store", "tile.store"):
            p.tma += machine.op_cost(o.name, [], [_tile(o.operands[-1].type) or _tile(o.operands[1].type)]).cycles
        else:
            c = _reg_cycles(machine, o)
            if c or any(v in register_made for v in o.operands):
                p.regs += c
                register_made.update(o.results)
    for o in kernel.body.walk():  # a tile's prologue and epilogue: the ops outside its K loops
        if o is main or _within(o, main) or (_in_loop(o, kernel) is not None and not p.own_tile_loop):
            continue  # (another K loop of the tile, a causal kernel's diagonal one: priced as the main one)
        if o.name in ("tile.desc_store", "tile.store"):
            t = _tile(o.operands[-1].type) if o.name == "tile.desc_store" else _tile(o.operands[1].type)
            if t is not None:
                out = t if o.name == "tile.desc_store" else _tile(o.operands[1].type)
                p.store_tma += machine.op_cost("tile.desc_store", [], [out]).cycles
                p.epilogue += out.bytes / SMEM_BYTES_PER_CYCLE
                p.staging_bytes += _aligned(out.bytes)
                if o.name == "tile.desc_store":
                    p.desc_staging_bytes += _aligned(out.bytes)
        elif o.name in ("tile.desc_load", "tile.load") and isinstance(o.results[0].type, TensorType):
            p.once_bytes += _aligned(_tile(o.results[0].type).bytes)
        else:
            p.epilogue += _reg_cycles(machine, o)
    p.epilogue += machine.rule("tile.dot").get("latency", 0)
    warps = kernel.attributes.get(NUM_WARPS_ATTR)
    p.groups = max(1, (warps.value.data if isinstance(warps, IntegerAttr) else 4) // 4)
    p.acc_regs = math.ceil(sum(tile_regs(a.type, p.groups) for a in main.body.block.args[1:]))
    return p


def _within(op: Operation, loop: scf.ForOp) -> bool:
    cur = op.parent_op()
    while cur is not None:
        if cur is loop:
            return True
        cur = cur.parent_op()
    return False


@dataclass(frozen=True)
class Candidate:
    persistent: bool
    team: bool  # a ping-pong team of two consumer groups
    ctas: int  # CTAs per SM

    def label(self) -> str:
        words = ["persistent" if self.persistent else "one tile per CTA"]
        if self.team:
            words.append("ping-pong team")
        if self.ctas > 1:
            words.append(f"{self.ctas} CTAs/SM")
        return " + ".join(words)


def smem_bytes(p: Profile, depth: int, persistent: bool = True) -> int:
    """Shared memory of rings of `depth` slots and the TMA-store staging (every store is a TMA
    store in a persistent kernel: ws-hopper's tma-store=auto)."""
    staging = p.staging_bytes if persistent else p.desc_staging_bytes
    return 1024 + depth * (p.slot_bytes + 16) + depth * p.once_bytes + staging


def fitted_depth(p: Profile, depth: int, ctas: int, persistent: bool = True) -> int:
    """The deepest ring up to `depth` whose shared memory fits a CTA's share (at least 1)."""
    while depth > 1 and smem_bytes(p, depth, persistent) > smem_per_cta(ctas):
        depth -= 1
    return depth


def predict(p: Profile, c: Candidate, trips: int, tiles: int, machine, depth: int, mma_depth: int) -> float:
    """Cycles of the whole launch on one SM under candidate `c`."""
    d = fitted_depth(p, depth, c.ctas, c.persistent)
    latency_bound = LOAD_LATENCY / max(d - mma_depth, 1)  # loads in flight cover the latency
    if c.team:
        f = machine.chain_factor("SFU", True)
        # the turn's cost where a group waiting for it has no register work to run meanwhile
        turn = TEAM_TURN * max(0.0, p.tc - f * p.regs)
        step = max(p.tc, p.tma, latency_bound, f * p.regs) + turn
        # each group's half of the epilogue: one of them under the partner's MMAs (its last ones,
        # and in a persistent kernel the next tile's)
        epilogue = p.epilogue - min(p.epilogue / 2, p.tc / 2 * (trips if c.persistent or p.own_tile_loop else 1))
    else:
        step = max(p.tc, p.tma, latency_bound, machine.chain_factor("SFU", False) * p.regs + p.tc_dep)
        epilogue = p.epilogue
    tile = trips * step + epilogue
    tile += TILE_SWITCH if c.persistent else CTA_START + LOAD_LATENCY
    rounds = math.ceil(tiles / (SMS * c.ctas))
    per_sm = math.ceil(tiles / SMS)
    # the SM's tensor core and TMA loads (stores go the other way), and each CTA's launch
    units = per_sm * (max(trips * max(p.tc, p.tma), p.store_tma) + (0 if c.persistent else CTA_LAUNCH))
    total = max(rounds * tile, units)
    if c.persistent:
        total += CTA_START + LOAD_LATENCY + PERSISTENT_SETUP
    return total


@dataclass
class Decision:
    options: dict
    reasons: list[str]


def decide(kernel: func.FuncOp, machine, tiles: int = 0, team_from_schedule: tuple[int, bool] = (1, False),
           given: dict | None = None) -> Decision:
    """The organisation of `kernel`, with the model's reasons. `given`: options the user fixed
    (ws-hopper's, dashed names): the model chooses the rest among the organisations that agree
    with them (two CTAs per SM given: no team beside them unless a team is given too)."""
    given = given or {}
    p = profile(kernel, machine)
    if not p.has_loop:
        return Decision(dict(FIXED), ["no tensor-core loop: nothing to overlap, the plain organisation"])
    mma_depth = 1 if p.tc / max(p.groups, 1) >= machine.rule("tile.dot").get("latency", 0) else 2
    step = max(p.tc, p.tma, 1.0)
    depth = min(max(4, mma_depth + 1 + math.ceil(LOAD_LATENCY / step)), MAX_DEPTH)
    sched_k, sched_pp = team_from_schedule
    scheduled = any("ws.schedule" in o.attributes for o in kernel.body.walk())
    # two groups of 64 rows or more each, from a consumer of one or two warp groups
    can_team = p.rows >= 128 and p.rows % 128 == 0 and p.groups <= 2 and (not scheduled or sched_k > 1)
    can_pair = smem_bytes(p, 2, False) <= smem_per_cta(2)  # and the registers allow (pair_registers)
    persists = [given["persistent"]] if "persistent" in given else [False] + ([] if p.own_tile_loop else [True])
    teams = [given["cooperative"] >= 2] if "cooperative" in given else [False] + ([True] if can_team else [])
    ctass = [given["ctas-per-sm"]] if "ctas-per-sm" in given else [1] + ([2] if can_pair else [])
    both = "cooperative" in given and "ctas-per-sm" in given  # a team beside 2 CTAs only where both are given
    candidates = [Candidate(pers, team, ctas) for pers in persists for team in teams for ctas in ctass
                  if not (team and ctas > 1 and not both)] or [Candidate(persists[0], False, ctass[0])]
    if scheduled:  # the joint model of ws-schedule decided the warps (and the team, if any)
        candidates = [c for c in candidates if c.team == (sched_k > 1 and sched_pp) and c.ctas == 1] or candidates
    pair_note = None  # two CTAs per SM ruled out by the registers: why
    if "ctas-per-sm" not in given and any(c.ctas > 1 for c in candidates):
        pair_note = pair_registers(kernel, p, [c.persistent for c in candidates if c.ctas > 1])
        if pair_note is not None:
            candidates = [c for c in candidates if c.ctas == 1]
    n_tiles = tiles if tiles > 0 else LARGE_TILES_PER_SM * SMS
    trip_set = (p.trips,) if p.trips is not None else TRIPS
    table = {c: [predict(p, c, max(n, 1), n_tiles, machine, depth, mma_depth) for n in trip_set] for c in candidates}
    best_at = [min(table[c][i] for c in candidates) for i in range(len(trip_set))]
    loss = {c: max(t / b for t, b in zip(table[c], best_at)) for c in candidates}
    # the least worst-case loss; near-ties go to the simpler organisation
    least = min(loss.values())
    simple = sorted(candidates, key=lambda c: (c.ctas, c.team, c.persistent))
    chosen = next(c for c in simple if loss[c] <= least + TIE)
    fitted = fitted_depth(p, depth, chosen.ctas, chosen.persistent)
    options = dict(FIXED, depth=max(fitted, 2), **{"mma-depth": min(mma_depth, max(fitted, 2) - 1)})
    options.update(persistent=chosen.persistent, **{"ctas-per-sm": chosen.ctas})
    if chosen.team:
        options.update(cooperative=sched_k if sched_k > 1 else 2, pingpong=True)
    if chosen.persistent:
        options["tile-group"] = _tile_group(kernel)
    at = "/".join(str(n) for n in trip_set)
    rows = "; ".join(f"{c.label()} {'/'.join(f'{t / 1e3:.1f}k' for t in table[c])} (worst loss "
                     f"{100 * (loss[c] - 1):.1f} %)" for c in simple)
    reasons = [f"per iteration tc {p.tc:.0f}, tma {p.tma:.0f}, softmax/regs {p.regs:.0f} (tc after it "
               f"{p.tc_dep:.0f}) cycles; epilogue {p.epilogue:.0f}; CTA start {CTA_START + LOAD_LATENCY}",
               f"predicted cycles per SM at {at} K-loop iterations"
               f"{'' if p.trips is not None else ' (trip count symbolic)'}, {n_tiles} tiles"
               f"{'' if tiles else ' (launch assumed large)'}: {rows}"]
    if scheduled:
        reasons.append("warps as ws-schedule planned them" + (f" (a team of {sched_k}"
                       f"{', ping-pong' if sched_pp else ', lockstep'})" if sched_k > 1 else ""))
    elif not can_team:
        reasons.append(f"no team: {p.rows}-row tile of {p.groups} warp group{'s' if p.groups > 1 else ''} "
                       f"(each of two groups needs 64 rows)")
    if pair_note is not None:
        reasons.append(pair_note)
    if p.own_tile_loop:
        reasons.append("not made persistent: the kernel loops over its tiles itself")
    reasons.append(f"depth {depth} to cover {LOAD_LATENCY}-cycle loads over {step:.0f}-cycle iterations with "
                   f"{mma_depth} wgmma batch{'es' if mma_depth > 1 else ''} in flight"
                   + (f", {fitted} fit{'s' if fitted == 1 else ''} in shared memory" if fitted < depth else ""))
    return Decision(options, reasons)


def pair_registers(kernel: func.FuncOp, p: Profile, persistent: list[bool]) -> str | None:
    """Why two CTAs cannot share an SM for want of registers, or None where they can. At two
    CTAs per SM a thread gets 65536 / (2 x threads) registers (ws-distribute's consumer_regs:
    ptxas compiles the whole kernel within it under .minnctapersm 2): where the consumer needs
    more, ptxas spills, or refuses the wgmma whose accumulator does not fit (C7602). The need is
    ws-register-budget's estimate on the kernel built at two CTAs per SM (organised as each
    persistence in `persistent` would build it); the carried accumulators plus the branch's
    scalars bound it from below, so a kernel they already rule out is not built."""
    from wsdialects.lower.register_budget import OVERHEAD
    from wsdialects.transforms.distribute import consumer_regs

    cap = consumer_regs(4 * p.groups, 2)
    def why(need: str) -> str:
        return (f"not 2 CTAs per SM: the consumer needs {need} registers per thread (ws-register-budget), "
                f"above the {cap} a thread gets at 2 CTAs per SM")

    if p.acc_regs + OVERHEAD > cap:
        return why(f"at least {p.acc_regs + OVERHEAD}")
    needs = [_built_consumer_regs(kernel, pers) for pers in sorted(set(persistent))]
    if None in needs:
        return "not 2 CTAs per SM: the kernel does not build at 2 CTAs per SM"
    return why(f"about {max(needs)}") if max(needs) > cap else None


def _built_consumer_regs(kernel: func.FuncOp, persistent: bool) -> int | None:
    """ws-register-budget's estimate for the consumer branches of `kernel` built at two CTAs per SM
    as ws-hopper builds it (ws-host-descriptors, ws-tma-load, ws-tma-store where persistent,
    ws-specialize with two-slot rings, the lowering up to ws-register-budget; on a copy, its
    remarks and warnings dropped), None where it does not build."""
    from wsdialects.diagnostics import WsError, collect_notes
    from wsdialects.lower.lead_warp import LeadWarpPass
    from wsdialects.lower.lower_aref import LowerArefPass
    from wsdialects.lower.lower_layouts import LowerLayoutsPass
    from wsdialects.lower.lower_mma import LowerMmaPass
    from wsdialects.lower.lower_warp_groups import LowerWarpGroupsPass
    from wsdialects.lower.register_budget import REGS_ATTR, RegisterBudgetPass
    from wsdialects.lower.stage_operands import StageOperandsPass
    from wsdialects.nvgpu import BranchOp
    from wsdialects.transforms.host_descriptors import HostDescriptorsPass
    from wsdialects.transforms.specialize import SpecializePass
    from wsdialects.transforms.tma_load import TmaLoadPass
    from wsdialects.transforms.tma_store import TmaStorePass
    from wsdialects.transforms.version_masks import VersionMasksPass

    key = (str(kernel), persistent)
    if key not in _BUILT_REGS:
        if len(_BUILT_REGS) >= 256:
            _BUILT_REGS.clear()
        copy = ModuleOp([kernel.clone()])
        copy.body.block.first_op.attributes.pop(ORGANISATION_ATTR, None)
        passes = [HostDescriptorsPass(remarks=False), TmaLoadPass(remarks=False),
                  *([TmaStorePass(remarks=False)] if persistent else []),
                  SpecializePass(depth=2, mma_depth=1, persistent=persistent, ctas_per_sm=2),
                  LowerArefPass(), LowerWarpGroupsPass(), LeadWarpPass(remarks=False), StageOperandsPass(),
                  LowerMmaPass(), LowerLayoutsPass(), VersionMasksPass(remarks=False), RegisterBudgetPass(remarks=False)]
        need = None
        try:
            with collect_notes():
                for ps in passes:
                    ps.apply(None, copy)
            need = max((b.attributes[REGS_ATTR].value.data for b in copy.walk() if isinstance(b, BranchOp)
                        and REGS_ATTR in b.attributes and b.role.data != "producer"), default=None)
        except WsError:
            pass
        _BUILT_REGS[key] = need
    return _BUILT_REGS[key]


_BUILT_REGS: dict = {}  # (kernel text, persistent) -> _built_consumer_regs (cleared past 256 entries)


def _tile_group(kernel: func.FuncOp) -> int:
    from wsdialects.transforms.persistent import AUTO_GROUP, _shares_rows_and_columns

    return AUTO_GROUP if _shares_rows_and_columns(kernel) else 0


def to_attr(options: dict) -> DictionaryAttr:
    return DictionaryAttr({k: BoolAttr.from_bool(v) if isinstance(v, bool) else IntegerAttr(v, i32)
                           for k, v in options.items()})


def from_attr(a: DictionaryAttr) -> dict:
    """The options of a `ws.organisation` dictionary (booleans as i1 or `true` / `false`)."""
    out = {}
    for k, v in a.data.items():
        if k in OPTIONS and isinstance(v, IntegerAttr):
            out[k] = bool(v.value.data) if OPTIONS[k] is bool else v.value.data
    return out


def describe(options: dict) -> str:
    o = options
    words = ["persistent" if o["persistent"] else "one tile per CTA"]
    if o["cooperative"] > 1:
        words.append(f"{'a ping-pong' if o['pingpong'] else 'a'} team of {o['cooperative']} groups")
    words.append(f"depth {o['depth']}, mma-depth {o['mma-depth']}")
    if o["persistent"]:
        words.append({-1: "tiles in the pass's order", 0: "tiles in serpentine order"}.get(
            o["tile-group"], f"tiles in bands of {o['tile-group']}"))
    words.append(f"{o['ctas-per-sm']} CTA{'s' if o['ctas-per-sm'] > 1 else ''} per SM")
    return ", ".join(words)


@dataclass(frozen=True)
class ChooseOrganisationPass(ModulePass):
    """Decide each kernel's organisation from the cost model; write it as `ws.organisation`
    and explain it in a remark."""

    name = "ws-choose-organisation"
    arch: str = "h100"  # the machine model (wsdialects/schedule/machines/<arch>.json)
    tiles: int = 0  # output tiles of the launch, where known; 0: assume a large launch

    def apply(self, ctx, op: ModuleOp) -> None:
        self.choose(op)

    def choose(self, op: ModuleOp, given: dict | None = None) -> None:
        """`apply`, with options the user fixed (`decide`'s `given`: ws-hopper passes its own)."""
        from wsdialects.schedule.machine import load_machine
        from wsdialects.transforms.specialize import scheduled_team

        if self.tiles < 0:
            raise WsError(f"{self.name}: tiles (output tiles of the launch; 0: a large launch) must be >= 0, "
                          f"got {self.tiles}", "ws-opt")
        try:
            machine = load_machine(self.arch)
        except ValueError as e:
            raise WsError(f"{self.name}: {e}", "ws-opt") from None
        team = scheduled_team(op)
        for k in kernels(op):
            if ORGANISATION_ATTR in k.attributes:
                continue
            d = decide(k, machine, self.tiles, team, given)
            free = decide(k, machine, self.tiles, team) if given else d
            differ = [o for o in ("persistent", "cooperative", "ctas-per-sm")
                      if o in (given or {}) and free.options[o] != d.options[o]]
            if differ:
                d.reasons.append("around " + ", ".join(f"{o}={str(given[o]).lower()}" for o in differ)
                                 + " as given (alone the model would choose "
                                 + ", ".join(f"{o}={str(free.options[o]).lower()}" for o in differ) + ")")
            k.attributes[ORGANISATION_ATTR] = to_attr(d.options)
            remark(k, f"{self.name}: {describe(d.options)}: " + "; ".join(d.reasons))
