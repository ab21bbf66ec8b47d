"""Semantic tests of ws-stage-in-slot: attention kernels interpreted before and after the
pass (aref level) and, lowered, with and without it (the interpreter writes a staged tile
into the ring's slot, where a wgmma still reading it or a refill landing early would show)
give the same outputs; a store whose ring slot is read other than as its team's MMA rows is
not staged; a lowering that releases the slot before the store is caught."""

import pytest

import wsdialects
from cases import CASES, INPUTS, assert_same, run
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.lower.llvm.kernel import lower_module

ATTENTION = [c for c in CASES if c.name in ("attention", "causal_attention")]
ORGANISATIONS = ["depth=2 mma-depth=1", "depth=2 mma-depth=1 cooperative=2 pingpong=true",
                 "depth=2 mma-depth=1 cooperative=2 pingpong=true persistent=true programs=2"]


def _staged(m) -> int:
    return sum(1 for o in m.walk() if o.name == "tile.desc_store" and "ws.store_staging" in o.attributes)


@pytest.mark.parametrize("case", ATTENTION, ids=lambda c: c.name)
@pytest.mark.parametrize("spec", ORGANISATIONS, ids=["one_group", "pingpong", "persistent"])
def test_stage_in_slot_preserves_semantics(case, spec, rng):
    before = parse_kernel(case.path())
    aref = compile_kernel(case.path(), f"ws-specialize{{{spec}}},ws-stage-in-slot")
    assert _staged(aref) == 1
    lowered = compile_kernel(case.path(), f"ws-specialize{{{spec}}},ws-stage-in-slot,ws-lower-aref,ws-lower-warp-groups")
    plain = compile_kernel(case.path(), f"ws-specialize{{{spec}}},ws-lower-aref,ws-lower-warp-groups")
    assert any(o.name == "nvgpu.smem.alloc" and "ws.store_staging" in o.attributes for o in lowered.walk())
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for m in (aref, lowered, plain):
        for seed in (None, 3):
            assert_same(want, run(m, case, grid, args, seed=seed))


def test_release_before_the_store_is_caught(rng):
    """Lowered, the Q slot released before O is staged in it: the producer's next Q (a
    persistent program's next tile) may land in the slot first, or O overwrite the next Q."""
    case = next(c for c in CASES if c.name == "attention")
    spec = "ws-specialize{depth=2 mma-depth=1 persistent=true programs=1},ws-stage-in-slot,ws-lower-aref"
    text = str(compile_kernel(case.path(), spec, shared=True))
    lines = text.splitlines()
    wait = next(i for i, ln in enumerate(lines) if "nvgpu.tma.store_wait" in ln)
    release = wait + 1 + next(i for i, ln in enumerate(lines[wait + 1:]) if "nvgpu.mbarrier.arrive %aref_q_empty" in ln)
    store = next(i for i, ln in enumerate(lines) if "tile.desc_store" in ln)
    moved = lines[:store] + lines[store + 1:release + 1] + [lines[store]] + lines[release + 1:]
    broken = wsdialects.parse("\n".join(moved))
    grid, args = case.make(rng)
    want = run(parse_kernel(case.path()), case, grid, args)
    outcomes = set()
    for seed in (None, 1, 2, 3, 4, 5):
        try:
            got = run(broken, case, grid, args, seed=seed)
            assert_same(want, got)
            outcomes.add("same")
        except (AssertionError, wsdialects.InterpretError):
            outcomes.add("caught")
    assert "caught" in outcomes


def test_slot_read_elementwise_is_not_staged(tmp_path):
    """Q read element by element after the loop (added to O): a group would overwrite rows
    another read still needs, so the store keeps a staging buffer of its own."""
    case = next(c for c in CASES if c.name == "attention")
    text = case.path().read_text()
    store = '"tile.desc_store"(%o_desc, %q_row, %c0, %o16)'
    assert text.count(store) == 1
    text = text.replace(store, '%o_q = arith.addf %o16, %q : tensor<128x128xf16>\n    '
                               '"tile.desc_store"(%o_desc, %q_row, %c0, %o_q)')
    path = tmp_path / "attention_reads_q.mlir"
    path.write_text(text)
    m = compile_kernel(path, "ws-specialize{depth=2 mma-depth=1},ws-stage-in-slot")
    assert _staged(m) == 0


BN176 = INPUTS / "flash_attention_bf16_bn176.mlir"


def _lowered(pipeline: str):
    m = compile_kernel(BN176, pipeline)
    return m, lower_module(m)


@pytest.mark.parametrize("pipeline", ["ws-hopper{cooperative=2 pingpong=true}", "ws-hopper"])
def test_176_key_tiles_keep_two_slots(pipeline):
    """O staged in Q's slot: the rings keep two slots of K and V, and the kernel needs no
    shared memory for O (the emitter places the store's staging at Q's slot)."""
    m, lowered = _lowered(pipeline)
    allocs = {o.results[0].name_hint: o.results[0].type for o in m.walk() if o.name == "nvgpu.smem.alloc"}
    assert allocs["aref_k_buf0"].get_shape()[0] == allocs["aref_v_buf0"].get_shape()[0] == 2
    (info,) = lowered.kernels
    q, kv = 128 * 128 * 2, 2 * 2 * 176 * 128 * 2
    assert q + kv <= info.smem_bytes < q + kv + 4096  # no 32 KB staging buffer besides
    assert "cp.async.bulk.wait_group.read 0" in lowered.llvm_ir


def test_staging_without_its_slot_is_an_error():
    """A store marked for a slot that no nvgpu.smem.alloc carries: a located error."""
    m = compile_kernel(BN176, "ws-hopper")
    for o in m.walk():
        if o.name == "nvgpu.smem.alloc":
            o.attributes.pop("ws.store_staging", None)
    with pytest.raises(wsdialects.WsError, match="no nvgpu.smem.alloc carries ws.store_staging = 0"):
        lower_module(m)


@pytest.mark.parametrize("stored,options", [("flash_attention_bf16_bn176", ""),
                                            ("flash_attention_bf16_bn176_occupancy", " partner-latency=false")])
def test_stored_176_schedule_is_the_solver_output(stored, options):
    """test/Inputs/kernels/scheduled/flash_attention_bf16_bn176*.mlir are what ws-schedule writes
    today, by default (partner-latency=auto: the partner's prices) and with a member's softmax
    priced at occupancy (the GPU tests compile them; the GPU machine has no OR-Tools)."""
    pytest.importorskip("ortools")
    text = (INPUTS / "scheduled" / f"{stored}.mlir").read_text()
    fresh = compile_kernel(BN176, f"ws-schedule{{arch=h100 time-limit=120{options}}}", file="flash_attention_bf16_bn176",
                           shared=True)
    assert str(fresh).strip() == "\n".join(ln for ln in text.splitlines() if not ln.startswith("//")).strip()


def _stages(path):
    m = wsdialects.parse_file(path)
    return {o.results[0].name_hint: o.attributes["ws.stage"].value.data
            for o in m.walk() if "ws.stage" in o.attributes and o.results}


def test_partner_latency_puts_pv_one_stage_behind_at_176_keys():
    """Priced with the partner's interference (chain_latency.with_partner, the default's choice
    here), a member's chain QK^T -> softmax -> P·V no longer fits one II at 176 keys: P·V and
    O's rescale go one stage behind QK^T (FA3's pipeline); priced at occupancy everything stays
    in QK^T's stage. P crosses the stage boundary as its 16-bit copy."""
    default = _stages(INPUTS / "scheduled" / "flash_attention_bf16_bn176_occupancy.mlir")
    partner = _stages(INPUTS / "scheduled" / "flash_attention_bf16_bn176.mlir")
    assert set(default.values()) == {0}
    assert partner["qk_raw"] == 0 and partner["acc_new"] == partner["acc_s"] == 1
    assert partner["p16"] == partner["p"] == 0


def test_partner_latency_schedule_is_the_same_attention(rng):
    """The partner-latency schedule through ws-hopper computes what the kernel as written does
    on the same fresh random inputs (three key tiles of 176, the last ragged; NaN-poisoned)."""
    import ml_dtypes
    import numpy as np

    after = compile_kernel(INPUTS / "scheduled" / "flash_attention_bf16_bn176.mlir", "ws-hopper",
                           file="flash_attention_bf16_bn176")
    assert _staged(after) == 1 and any(o.name == "nvgpu.wgmma.mma_async" for o in after.walk())
    L, D = 400, 128
    q, k, v = (rng.standard_normal((1, L, D)).astype(ml_dtypes.bfloat16) for _ in range(3))
    outs = []
    for module in (parse_kernel(BN176), after):
        o = np.full((1, L, D), np.nan, ml_dtypes.bfloat16)
        wsdialects.interpret(module, "flash_attention_bf16", grid=(-(-L // 128), 1),
                             args=[q, k, v, o, L, float(1 / np.sqrt(D))], seed=7)
        assert not np.isnan(o.astype(np.float32)).any(), "an output element was not written"
        outs.append(o.astype(np.float64))
    assert np.linalg.norm(outs[1] - outs[0]) / np.linalg.norm(outs[0]) < 1e-2


def test_verify_sync_catches_a_release_before_the_store():
    """Statically too: lowered and persistent, the Q slot released before O is staged in it,
    the producer's refill of the slot races with the staging write (ws-verify-sync, which
    ws-hopper runs on every lowering, reports it at the refill); as compiled it is clean."""
    from wsdialects.transforms.verify_sync import verify_sync

    text = str(compile_kernel(BN176, "ws-hopper{cooperative=2 pingpong=true persistent=true}", shared=True))
    verify_sync(wsdialects.parse(text))
    lines = text.splitlines()
    store = next(i for i, ln in enumerate(lines) if "tile.desc_store" in ln and "ws.store_staging" in ln)
    assert "nvgpu.tma.store_wait" in lines[store + 1]
    release = store + 2 + next(i for i, ln in enumerate(lines[store + 2:]) if "nvgpu.mbarrier.arrive %aref_q_empty" in ln)
    moved = lines[:store] + lines[store + 2:release + 1] + lines[store:store + 2] + lines[release + 1:]
    with pytest.raises(Exception, match=r"writes %aref_q_buf0\[0\] here, but no barrier orders this after .*a data race"):
        verify_sync(wsdialects.parse("\n".join(moved)))


def test_slot_read_outside_the_team_is_not_staged():
    """ws-schedule's split attention stores O from the P·V warp while the softmax warp reads Q.
    Had the storing warp a (dead) get of Q's ring too, it would look like a team of one that
    holds the slot; but the softmax warp's QK^T may still read it: not staged."""
    text = str(compile_kernel(INPUTS / "scheduled" / "flash_attention_split.mlir", "ws-specialize", shared=True))
    text = text.replace("%aref_q = aref.create :", "%aref_q = aref.create consumers = 2 :", 1)
    lines = text.splitlines()
    store = next(i for i, ln in enumerate(lines) if "tile.desc_store" in ln)
    ind = " " * (len(lines[store]) - len(lines[store].lstrip()))
    ring = "!aref.ring<tensor<128x128xf16>, depth = 1>"
    lines[store:store] = [f"{ind}%qx = aref.get %aref_q[%c0_2] : {ring}", f"{ind}aref.consumed %aref_q[%c0_2] : {ring}"]
    m = wsdialects.parse("\n".join(lines))
    from wsdialects.transforms.stage_in_slot import stage_stores

    assert stage_stores(m) == 0
    assert _staged(m) == 0
