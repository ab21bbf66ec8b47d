"""Semantic tests of the lowering passes (ws-lower-aref, ws-lower-warp-groups): every
kernel interpreted before and after them, on fresh random inputs and under seeded
random interleavings, gives the same outputs; the interpreter's mbarrier / TMA
model (phases, parity, arrival counts, transaction bytes, asynchronous copies into
NaN-filled shared memory) makes a wrong parity, count or byte total deadlock or
mis-compute, which the mutation tests below show."""

import re

import numpy as np
import pytest

import wsdialects
from cases import CASES, INPUTS, assert_same, run
from wsdialects.lower.to_llvm import lower_module
from wsdialects.tools.ws_opt import emit
from kernel_cache import compile_kernel, parse_kernel


def transform(path, pipeline):
    return compile_kernel(path, pipeline)


SPECS = ["ws-specialize{depth=1 mma-depth=0}", "ws-specialize{depth=2 mma-depth=1}",
         "ws-specialize{depth=3 mma-depth=2}"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("spec", SPECS)
def test_lower_aref_preserves_semantics(case, spec, rng):
    before = transform(case.path(), spec)
    after = transform(case.path(), spec + ",ws-lower-aref")
    names = {op.name for op in after.walk()}
    assert not any(n.startswith("aref.") for n in names)
    assert {"nvgpu.mbarrier.try_wait.parity", "nvgpu.tma.async_load", "nvgpu.smem.view"} <= names
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 1, 2, 3):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_lower_warp_groups_preserves_semantics(case, rng):
    spec = "ws-specialize{depth=3 mma-depth=1}"
    before = parse_kernel(case.path(), shared=True)
    after = transform(case.path(), spec + ",ws-lower-aref,ws-lower-warp-groups")
    names = {op.name for op in after.walk()}
    assert "nvgpu.wg.dispatch" in names and not any(n.startswith("warp_group.") for n in names)
    for d in (o for o in after.walk() if o.name == "nvgpu.wg.dispatch"):
        d.verify()  # as a whole: the pass verifies only what it changed (`_verify_lowered`)
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 4):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("extra", ["ws-specialize{persistent=true programs=3}",
                                   "ws-specialize{cooperative=2 mma-depth=1}"])
def test_lower_aref_persistent_and_cooperative(shared, extra, rng):
    case = CASES[0]  # gemm
    before = parse_kernel(case.path(), shared=True)
    after = transform(case.path(), extra + ",ws-lower-aref,ws-lower-warp-groups")
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 5, 6):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_lower_aref_computed_payloads(rng):
    """A computed tile through an aref: the putting threads store it to shared memory,
    fence the async proxy and each arrive on FULL (128 arrivals)."""
    path = INPUTS / "computed_put.mlir"
    before = wsdialects.parse_file(path)
    after = transform(path, "ws-lower-aref,ws-lower-warp-groups")
    text = emit(after, "mlir")
    assert "nvgpu.smem.store" in text and "nvgpu.fence.proxy_async" in text
    assert re.search(r"_full\[%\w+\] count 128", text)
    T = 5
    a = rng.standard_normal((64 * T, 64)).astype(np.float16)
    want = np.zeros_like(a)
    wsdialects.interpret(before, "computed_put", 1, [a, want, T])
    np.testing.assert_array_equal(want, a * np.float16(2))
    for seed in (None, 1, 2, 3):
        got = np.zeros_like(a)
        wsdialects.interpret(after, "computed_put", 1, [a, got, T], seed=seed)
        assert np.array_equal(got, want)
    # Publishing with too few arrivals (FULL counts 128 producer threads) never completes.
    broken = wsdialects.parse(re.sub(r"(_full\[%\w+\]) count 128", r"\1 count 129", text))
    with pytest.raises(wsdialects.Deadlock):
        wsdialects.interpret(broken, "computed_put", 1, [a, np.zeros_like(a), T])
    # EMPTY: every consumer thread releases its own reads (4 warps: 128 arrivals), unpredicated
    assert re.search(r"_empty\[%\w+\] count 128", text) and "per_thread" in text
    broken = wsdialects.parse(re.sub(r"(_empty\[%\w+\]) count 128", r"\1 count 129", text))
    with pytest.raises(wsdialects.Deadlock):
        wsdialects.interpret(broken, "computed_put", 1, [a, np.zeros_like(a), T])
    ll = lower_module(transform(path, "ws-lower-aref,ws-lower-warp-groups,ws-lower-layouts")).llvm_ir
    assert '"mbarrier.arrive.shared::cta.b64 _, [$0];", "r"' in ll  # per_thread: no lane predicate


# ----------------------------------------------------------------------------- mutations

def _lowered_gemm_text(shared, spec="ws-specialize{depth=2 mma-depth=0}"):
    return emit(transform(shared / "kernels" / "gemm.mlir", spec + ",ws-lower-aref"), "mlir")


def _gemm_inputs(rng, depth=2):
    M, N, K = 128, 256, 64 * (depth * 2 + 1)  # several passes over the ring
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    return [a, b, np.zeros((M, N), np.float16), M, N, K, N]


def _run_gemm(text, args, seed):
    args = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    wsdialects.interpret(wsdialects.parse(text), "matmul", 1, args, seed=seed)
    return args[2]


def _reference(shared, args):
    m = wsdialects.parse_file(shared / "kernels" / "gemm.mlir")
    return _run_gemm_module(m, args)


def _run_gemm_module(m, args):
    args = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    wsdialects.interpret(m, "matmul", 1, args)
    return args[2]


def test_lowered_gemm_is_right(shared, rng):
    args = _gemm_inputs(rng)
    want = _reference(shared, args)
    text = _lowered_gemm_text(shared)
    for seed in (None, 1, 2):
        assert np.array_equal(_run_gemm(text, args, seed), want)


def test_producer_waiting_on_the_wrong_parity_deadlocks(shared, rng):
    # The producer must wait EMPTY with parity ^ 1 (a fresh barrier's "previous" phase).
    text = _lowered_gemm_text(shared)
    m = re.search(r"nvgpu\.mbarrier\.try_wait\.parity (%\S+_empty)\[(%\w+)\], (%\w+)", text)
    xor = re.search(rf"{re.escape(m.group(3))} = arith\.xori (%\w+), %\w+ : i32", text)
    broken = text.replace(m.group(0), f"nvgpu.mbarrier.try_wait.parity {m.group(1)}[{m.group(2)}], {xor.group(1)}")
    with pytest.raises(wsdialects.Deadlock, match=r"mbarrier %\S+_empty\[0\] phase parity 0"):
        _run_gemm(broken, _gemm_inputs(rng), None)


def test_consumer_waiting_on_the_wrong_parity_fails(shared, rng):
    # Waiting FULL with parity ^ 1 passes on a fresh barrier: the tile is read before
    # the TMA bytes landed (NaN shared memory), or the two sides deadlock later.
    text = _lowered_gemm_text(shared)
    m = re.search(r"nvgpu\.mbarrier\.try_wait\.parity (%\S+_full)\[(%\w+)\], (%\w+) ", text)
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if m.group(0) in ln)
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    lines[i:i + 1] = [f"{indent}%one_x = arith.constant 1 : i32",
                      f"{indent}%flip = arith.xori {m.group(3)}, %one_x : i32",
                      lines[i].replace(f", {m.group(3)} ", ", %flip ")]
    args = _gemm_inputs(rng)
    want = _reference(shared, args)
    for seed in (None, 1, 2):
        try:
            got = _run_gemm("\n".join(lines), args, seed)
        except wsdialects.Deadlock:
            continue  # the parities of the two sides never meet again
        assert not np.array_equal(got, want, equal_nan=True)


def test_too_few_transaction_bytes_fails(shared, rng):
    # expect_tx must cover both tiles: with only A's bytes the phase completes before B
    # lands (B read as NaN), and B's late bytes then unbalance a later phase.
    text = _lowered_gemm_text(shared)
    broken = text.replace("bytes 49152", f"bytes {128 * 64 * 2}")
    args = _gemm_inputs(rng)
    want = _reference(shared, args)
    try:
        got = _run_gemm(broken, args, None)
    except wsdialects.Deadlock:
        return
    assert not np.array_equal(got, want, equal_nan=True)


def test_too_many_transaction_bytes_deadlocks(shared, rng):
    text = _lowered_gemm_text(shared)
    with pytest.raises(wsdialects.Deadlock, match=r"bytes outstanding"):
        _run_gemm(text.replace("bytes 49152", "bytes 49160"), _gemm_inputs(rng), None)


def test_empty_arrival_counts_are_checked(shared, rng):
    text = _lowered_gemm_text(shared)
    with pytest.raises(wsdialects.InterpretError, match=r"arrival count too small"):
        _run_gemm(re.sub(r"(_empty\[%\w+\]) count 8", r"\1 count 4", text), _gemm_inputs(rng), None)
    with pytest.raises(wsdialects.Deadlock):
        _run_gemm(re.sub(r"(_empty\[%\w+\]) count 8", r"\1 count 16", text), _gemm_inputs(rng), None)


def test_early_release_miscomputes(shared, rng):
    # Arriving on EMPTY before the tile is read lets the producer refill the slot
    # under the consumer (seeded interleavings find it).
    text = _lowered_gemm_text(shared)
    lines = text.splitlines()
    wait = next(k for k, ln in enumerate(lines) if "try_wait.parity" in ln and "_full[" in ln)
    slot = re.search(r"_full\[(%\w+)\]", lines[wait]).group(1)
    arrive = next(k for k, ln in enumerate(lines) if "_empty[" in ln and "per_warp" in ln)
    moved = re.sub(r"_empty\[%\w+\]", f"_empty[{slot}]", lines.pop(arrive))
    lines.insert(wait + 1, moved)
    broken = "\n".join(lines)
    args = _gemm_inputs(rng)
    want = _reference(shared, args)
    assert any(not np.array_equal(_run_gemm(broken, args, s), want, equal_nan=True) for s in range(1, 13))
