"""`ws-hopper{depth=D mma-depth=P cooperative=G pingpong=true|false team-stores=gather|split
persistent=true|false programs=N tile-group=T ctas-per-sm=C lead-warp=true|false
tma-store=auto|true|false auto=true|false}`: the whole path from a tile kernel to Hopper code.

The organisation options (depth, mma-depth, cooperative, pingpong, persistent, tile-group,
ctas-per-sm) default to `auto`: `ws-choose-organisation` decides them per kernel from its cost
model first (persistent or not, a ping-pong team, ring depth, tile order, CTAs per SM), writes the
decision on the kernel as `ws.organisation` and explains it in a remark; an option written
explicitly overrides the model's value (with a remark naming what the model chose), and
`auto=false` gives every option left at auto the fixed organisation instead (depth 4, mma-depth
1, one consumer partition, one tile per CTA, one CTA per SM). Where the model's organisation does
not build on a kernel (a sub-pass rejects it), the fixed one is built, with a remark. After
ws-hopper, `ws.organisation` says what was built:

    func.func @matmul(...) attributes {tile.kernel, tile.num_warps = 8 : i32}
      ==> ws-hopper
    func.func @matmul(..., %ws_grid_x: i32, ...) attributes {..., ws.organisation = {depth = 3 : i32,
        "mma-depth" = 1 : i32, cooperative = 2 : i32, pingpong = true, persistent = true, "tile-group" = 8 : i32,
        "ctas-per-sm" = 1 : i32}, ws.persistent = {programs = 132 : i32}}

`ws-hopper` is `ws-specialize` plus the lowering. It runs `ws-host-descriptors` (descriptors the
kernel makes from its arguments, `tile.make_desc`, become arguments the launch builds),
`ws-tma-load` (bounds-masked pointer-tile loads become TMA loads of descriptors the launch
builds), `ws-tma-store` (with `tma-store=auto`, the default, in persistent kernels only, where
the asynchronous store overlaps the next tile's main loop), then `ws-specialize` with the same options, then the lowering:
`ws-lower-aref` (aref rings -> mbarriers, shared-memory slots, TMA), `ws-lower-warp-groups`
(warp-group dispatch with setmaxnreg), `ws-lead-warp` (a TMA producer runs in one warp; off with
`lead-warp=false`), `ws-stage-operands` (a register tile used transposed as A, or as B, staged
through shared memory), `ws-lower-mma` (dots -> wgmma fence / mma_async / commit_group / wait_group),
`ws-lower-layouts` (every tile gets its thread layout), `ws-version-masks` (a boundary mask only
on the tiles the bound cuts) and `ws-register-budget` (a warning where a branch will spill).
`ws-verify-sync` checks the synchronization on the aref IR and again on the lowered mbarriers
and named barriers (a violation is an internal compiler error). The IR it leaves is nvgpu /
nvvm ops around tile ops on laid-out tiles; it prints, re-parses and still runs in the
interpreter, and `-t llvm` / `-t ptx` then write each op per thread (`wsdialects/lower/llvm/`,
`wsdialects/lower/ptx.py`):

    %d = tile.dot %a, %bt, %acc : ...          nvgpu.wg.dispatch threads 384 {
    (in a tile.kernel's K loop)        ==>       nvgpu.wg.branch warps 0 to 4 "producer" {... nvgpu.tma.async_load ...}
                                                 nvgpu.wg.branch warps 4 to 12 "consumer" {... nvgpu.wgmma.mma_async ...}
                                               }

Its fixed depths differ from ws-specialize's (Tawa's D = 3, P = 2): depth = 4, mma-depth = 1. A
consumer that keeps P wgmma batches in flight still holds P ring slots while it waits for the
next one, so only D - P TMA loads can be in flight: with D = 3, P = 2 that is one load, and a
GEMM with 48 KB slots waits on TMA latency every iteration. One batch in flight (CUTLASS's
choice; two consumer warp groups already overlap each other's wgmma issue) and four slots
(192 KB, what shared memory holds next to the staged epilogue) keep three loads in flight.

`depth` is the most slots a ring gets: when the rings and TMA-store staging of depth D do not
fit in the 227 KB of shared memory a block may have (a C-th of the SM's 228 KB, less 1 KB, with
`ctas-per-sm=C`), ws-hopper uses the largest depth that fits (and mma-depth below it) and says
so in a remark:

    attention.mlir:4:3: remark: ws-hopper: rings of depth 4 need 328704 bytes of shared memory ...; using depth 2

Where even two slots per ring do not fit beside the staging buffers of the TMA stores
(176-key attention: Q 32 KB, K and V 44 KB a slot, O's staging 32 KB), ws-stage-in-slot stages
a store in the slot of a ring released before it (O in Q's) and the rings keep two slots. It
does so only there: on 128-key attention the third slot it would allow was not faster overall
than two slots with O's own staging buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, TensorType
from xdsl.passes import ModulePass

from wsdialects.nvgpu.types import smem_per_cta
from wsdialects.transforms.specialize import SpecializePass
from wsdialects.transforms.stage_in_slot import stage_stores



def _tile_bytes(t: TensorType) -> int:
    from wsdialects.lower.lower_aref import tile_bytes

    return (tile_bytes(t) + 1023) // 1024 * 1024  # slots and staging are 1024-B aligned


def ring_smem_bytes(module: ModuleOp) -> int:
    """Shared memory the aref rings, the TMA-store staging and the staging of tiles loaded into
    registers take in a warp-specialized module (what the slot plan of the emitter allocates
    before anything optional)."""
    from wsdialects.lower.lower_aref import loads_into_registers
    from wsdialects.lower.stage_operands import staged_operand_bytes
    from wsdialects.lower.store_staging import staging_pools

    total = 1024 + staged_operand_bytes(module)  # the base's alignment; register tiles staged for wgmma
    for o in module.walk():
        if o.name == "aref.create":
            rt = o.results[0].type
            total += rt.depth.data * (sum(_tile_bytes(t) for t in rt.types) + 16)
    for pool in staging_pools(module):  # stores in a ring's slot need none; a branch's share one
        total += max(_tile_bytes(o.operands[-1].type) for o in pool)
    return total + sum(_tile_bytes(o.result.type) + 8 for o in loads_into_registers(module))


def lowering_passes(lead_warp: bool = True, fp8_keys: str = "interleaved") -> list[ModulePass]:
    """The lowering half of ws-hopper, in order (also what `-t llvm` / `-t ptx` run on IR
    that ws-specialize left; tools/targets.py starts it where the IR stands)."""
    from wsdialects.lower.lead_warp import LeadWarpPass
    from wsdialects.lower.lower_aref import LowerArefPass
    from wsdialects.lower.lower_layouts import LowerLayoutsPass
    from wsdialects.lower.lower_mma import LowerMmaPass
    from wsdialects.lower.lower_warp_groups import LowerWarpGroupsPass
    from wsdialects.lower.register_budget import RegisterBudgetPass
    from wsdialects.lower.stage_operands import StageOperandsPass
    from wsdialects.transforms.version_masks import VersionMasksPass

    return [LowerArefPass(), LowerWarpGroupsPass(), *([LeadWarpPass(remarks=False)] if lead_warp else []),
            StageOperandsPass(), LowerMmaPass(), LowerLayoutsPass(fp8_keys=fp8_keys), VersionMasksPass(remarks=False), RegisterBudgetPass(remarks=False)]


@dataclass(frozen=True)
class HopperPass(SpecializePass):
    """The organisation ws-choose-organisation's cost model picks per kernel (for options left at
    auto), ws-specialize with it (ws-stage-in-slot where two slots per ring would not fit otherwise), then
    ws-lower-aref, -warp-groups, ws-lead-warp, ws-stage-operands, ws-lower-mma, -layouts and ws-version-masks:
    IR ready for -t ptx."""

    name = "ws-hopper"
    # auto: chosen per kernel by ws-choose-organisation's cost model (with auto=false, the fixed
    # organisation: depth 4, mma-depth 1, one consumer partition, one tile per CTA, 1 CTA per SM)
    depth: int | str = "auto"
    mma_depth: int | str = "auto"
    cooperative: int | str = "auto"
    pingpong: bool | str = "auto"
    persistent: bool | str = "auto"
    tile_group: int | str = "auto"
    ctas_per_sm: int | str = "auto"
    auto: bool = True  # options left at auto are the model's choice; false: the fixed organisation
    lead_warp: bool = True  # ws-lead-warp: a TMA producer runs in one warp
    # ws-tma-store first (bounds-masked pointer-tile stores as TMA stores): auto = in persistent
    # kernels, where the store overlaps the next tile
    tma_store: bool | str = "auto"
    # ws-lower-layouts{fp8-keys}: interleaved (FlashAttention-3's key order of an fp8
    # V^T and P, no shuffles in P's conversion; wsdialects/lower/key_order.py)
    fp8_keys: str = "interleaved"

    def passes(self) -> list[ModulePass]:
        return [*super().passes(), *lowering_passes(lead_warp=self.lead_warp, fp8_keys=self.fp8_keys)]

    def apply(self, ctx, op: ModuleOp) -> None:
        """The organisation (options left at auto: ws-choose-organisation's), then the build; where
        the model's choice does not build on this kernel (a WsError of a sub-pass), the fixed
        organisation is built instead, with a remark saying why."""
        from wsdialects.diagnostics import PassDefect, WsError, collect_notes

        me, chosen = resolve_options(self, ctx, op)
        if not chosen:
            return me.build(ctx, op)
        original = op.clone()
        try:
            with collect_notes() as notes:
                me.build(ctx, op)
        except PassDefect:
            _replay(notes)
            raise
        except WsError as e:
            from wsdialects.transforms.organisation import FIXED, ORGANISATION_ATTR, to_attr
            from wsdialects.transforms.partition import kernels, remark

            _restore(op, original)
            fixed = replace(me, **{f: FIXED[_dashed(f)] for f in chosen})
            for k in kernels(op):
                k.attributes[ORGANISATION_ATTR] = to_attr(_options_of(fixed))
                remark(k, f"ws-hopper: the organisation the model chose does not build here ({e.message}); "
                          f"built with the fixed one for {', '.join(_dashed(f) for f in chosen)}")
            fixed.build(ctx, op)
            return
        _replay(notes)

    def build(self, ctx, op: ModuleOp) -> None:
        """ws-specialize at the deepest depth whose rings fit, then the lowering. A depth that
        does not fit is undone (the module is restored from a copy) and its remarks dropped,
        so each remark is printed once."""
        from wsdialects.diagnostics import collect_notes
        from wsdialects.transforms.specialize import run_composite

        if self.tma_store not in (True, False, "auto"):
            from wsdialects.diagnostics import WsError

            raise WsError(f"ws-hopper: tma-store must be true, false or auto, got '{self.tma_store}'", "ws-opt")
        self.check_options()  # before the depth trials read them
        from wsdialects.transforms.host_descriptors import HostDescriptorsPass
        from wsdialects.transforms.tma_load import TmaLoadPass

        HostDescriptorsPass(remarks=False).apply(ctx, op)  # descriptors made from arguments: built at launch
        TmaLoadPass(remarks=False).apply(ctx, op)  # pointer-tile loads become TMA loads first
        if self.tma_store is True or (self.tma_store == "auto" and self.persistent):
            from wsdialects.transforms.tma_store import TmaStorePass

            TmaStorePass(remarks=False).apply(ctx, op)
        original = op.clone() if self.depth > 1 else None
        limit = smem_per_cta(self.ctas_per_sm)
        need: dict[int, int] = {}
        def trial(me: HopperPass) -> list:
            """ws-specialize as `me` on `op`: the notes it gave."""
            try:
                with collect_notes() as notes:
                    team = me.prepare(op)
                    # verified once, after the lowering (a failure there verifies first: a broken
                    # sub-pass is still reported at its op)
                    run_composite(self.name, ctx, op, SpecializePass.passes(team), check=False, verify=False)
            except BaseException:
                _replay(notes)  # outside the collector (replaying into it would never end)
                raise
            return notes

        for depth in [*range(self.depth, 1, -1), 1]:  # the deepest rings that fit (depth 1 always goes ahead)
            me = self if depth == self.depth else replace(self, depth=depth, mma_depth=min(self.mma_depth, depth - 1))
            if depth < self.depth:  # undo the deeper trial
                _restore(op, original.clone() if depth > 1 else original)
            notes = trial(me)
            if depth == 1 or (need.setdefault(depth, ring_smem_bytes(op))) <= limit:
                break
            if depth == 2:  # two slots per ring, or one: TMA stores staged in released ring slots instead
                with collect_notes() as staged:
                    fits = stage_stores(op) and ring_smem_bytes(op) <= limit
                if not fits and me.team_stores == "split":  # a store staged in a slot is the team's gathered one
                    from wsdialects.transforms.partition import kernels, remark

                    _restore(op, original.clone())
                    gathered = trial(replace(me, team_stores="gather"))
                    with collect_notes() as staged:
                        fits = stage_stores(op) and ring_smem_bytes(op) <= limit
                        if fits:
                            remark(kernels(op)[0], "ws-hopper: the team's TMA stores are gathered (not "
                                                   "team-stores=split) to stage them in a ring's slot")
                            notes = gathered
                if fits:
                    notes += staged
                    break
        if depth == 1 and self.ctas_per_sm > 1 and need.setdefault(1, ring_smem_bytes(op)) > limit:
            from wsdialects.diagnostics import error_at
            from wsdialects.transforms.partition import kernels

            _replay(notes)
            raise error_at(kernels(op)[0], f"ws-hopper: at {self.ctas_per_sm} CTAs per SM a block has {limit} bytes of "
                                           f"shared memory, and rings of one slot already need {need[1]}: the kernel "
                                           f"cannot share an SM (use fewer CTAs per SM, or smaller tiles)")
        _record_built(op, depth, min(self.mma_depth, max(depth - 1, 0)))
        if depth != self.depth:
            from wsdialects.transforms.partition import kernels, remark

            per_sm = f" at {self.ctas_per_sm} CTAs per SM" if self.ctas_per_sm > 1 else ""
            for k in kernels(op)[:1]:
                remark(k, f"ws-hopper: rings of depth {self.depth} need {need[self.depth]} bytes of shared memory, "
                          f"more than the {limit} a block can have{per_sm}; using depth {depth}")
        _replay(notes)
        # ws-verify-sync runs on the aref IR before ws-lower-aref, and on the result
        run_composite(self.name, ctx, op, lowering_passes(lead_warp=self.lead_warp, fp8_keys=self.fp8_keys), check=True)


def _record_built(op: ModuleOp, depth: int, mma_depth: int) -> None:
    """Make each kernel's `ws.organisation` say what ws-specialize built: the ring depth that fit,
    and no team where ws-cooperative kept the consumer one group (its remark says why)."""
    from wsdialects.transforms.organisation import ORGANISATION_ATTR, from_attr, to_attr
    from wsdialects.transforms.partition import kernels

    for k in kernels(op):
        org = k.attributes.get(ORGANISATION_ATTR)
        if not isinstance(org, DictionaryAttr):
            continue
        built = dict(from_attr(org), depth=depth, **{"mma-depth": mma_depth})
        if built.get("cooperative", 1) > 1 and not any(o.name in ("warp_group.share", "warp_group.gather")
                                                         for o in k.body.walk()):
            built.update(cooperative=1, pingpong=False)
        k.attributes[ORGANISATION_ATTR] = to_attr(built)


AUTO_FIELDS = ("depth", "mma_depth", "cooperative", "pingpong", "persistent", "tile_group", "ctas_per_sm")


def _dashed(f: str) -> str:
    return f.replace("_", "-")


def _options_of(p: HopperPass) -> dict:
    return {_dashed(f): getattr(p, f) for f in AUTO_FIELDS}


def resolve_options(p: HopperPass, ctx, op: ModuleOp) -> tuple[HopperPass, list[str]]:
    """`p` with every option left at auto decided, and the fields the model decided: from
    `ws.organisation` on the kernels (ws-choose-organisation writes it where it is missing), or
    the fixed organisation with auto=false. Options given explicitly stay; the ones the model
    would have set otherwise are named in a remark. The kernels' `ws.organisation` then says
    what is built."""
    from wsdialects.diagnostics import WsError
    from wsdialects.transforms.organisation import (FIXED, OPTIONS, ORGANISATION_ATTR, ChooseOrganisationPass,
                                                    from_attr, to_attr)
    from wsdialects.transforms.partition import kernels, remark

    for f in AUTO_FIELDS:
        v, want = getattr(p, f), OPTIONS[_dashed(f)]
        if v != "auto" and not (isinstance(v, want) and (want is bool or not isinstance(v, bool))):
            kind = "true, false" if want is bool else "an integer"
            raise WsError(f"ws-hopper: {_dashed(f)} must be {kind} or auto, got '{str(v).lower()}'", "ws-opt")
    auto = [f for f in AUTO_FIELDS if getattr(p, f) == "auto"]
    ks = kernels(op)
    if not auto and not ks:
        return p, []
    if not p.auto or not ks:
        chosen = dict(FIXED)
    else:
        fixed = {_dashed(f): getattr(p, f) for f in AUTO_FIELDS if f not in auto}
        ChooseOrganisationPass().choose(op, fixed)  # the rest around what is given; a kernel's own decision stays
        decisions = [dict(FIXED, **from_attr(k.attributes[ORGANISATION_ATTR])) for k in ks]
        chosen = {o: decisions[0][o] if all(d[o] == decisions[0][o] for d in decisions) else FIXED[o]
                  for o in FIXED}  # one option set per module: where kernels differ, the fixed value
    values = {f: chosen[_dashed(f)] for f in auto}
    given = {f: getattr(p, f) for f in AUTO_FIELDS if f not in auto}
    # the model's team and tile order follow the options they depend on
    if "pingpong" in values and given.get("cooperative", 2) < 2:
        values["pingpong"] = False
    if "cooperative" in values and given.get("pingpong") is True and values["cooperative"] < 2:
        values["cooperative"] = 2
    persistent = given.get("persistent", values.get("persistent"))
    if "tile_group" in values and not persistent:
        values["tile_group"] = -1
    me = replace(p, **values)
    overridden = [f"{_dashed(f)}={str(v).lower()}" for f, v in given.items()
                  if p.auto and ks and v != chosen[_dashed(f)]]
    for k in ks if p.auto else []:  # the model's decision, and what is built of it
        if overridden:
            remark(k, f"ws-hopper: {' '.join(overridden)} given: the model chose "
                      + ", ".join(f"{_dashed(f)}={str(chosen[_dashed(f)]).lower()}" for f in given
                                  if f"{_dashed(f)}={str(given[f]).lower()}" in overridden))
        k.attributes[ORGANISATION_ATTR] = to_attr(_options_of(me))
    return me, (auto if p.auto else [])


def _restore(op: ModuleOp, fresh: ModuleOp) -> None:
    """Make `op` what `fresh` (a copy of its input) is: its body and its attributes."""
    op.body.detach_block(0)
    op.body.add_block(fresh.body.detach_block(0))
    op.attributes.clear()
    op.attributes.update(fresh.attributes)
    op.properties.clear()
    op.properties.update(fresh.properties)


def _replay(notes) -> None:
    from wsdialects.diagnostics import note_at

    for severity, loc, message in notes:
        note_at(loc, severity, message)
