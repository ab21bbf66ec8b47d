"""Semantic tests of ws-stage-operands (a register tile used transposed as wgmma's A, or as
B, stored to a shared-memory buffer of its branch and read back from there): the dS-like
kernel test/Inputs/kernels/staged_dst.mlir (acc += trans(f16(Q_j Kᵀ)) · V_j) interpreted from
source on ragged shapes matches numpy, and is unchanged by the pass and by all of ws-hopper
(several specializations, persistent, cooperative) under seeded interleavings. The
interpreter refuses a store into a buffer that an mma still in flight reads, so the waits
the pass inserts are shown necessary and sufficient on a pipeline that keeps the reader in
flight over the loop's back edge (removing the wait, or leaving one group too many, fails)."""

import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from cases import assert_same, copy_args
from kernel_cache import compile_kernel, parse_kernel

import wsdialects
from wsdialects.lower.stage_operands import StageOperandsPass, staged_operand_bytes
from wsdialects.tools.ws_opt import emit

KERNEL = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "staged_dst.mlir"
LOWER = ",ws-lower-aref,ws-lower-warp-groups"


def kernel_path(dt, tmp_path):
    if dt is np.float16:
        return KERNEL
    p = tmp_path / "staged_dst_bf16.mlir"
    p.write_text(KERNEL.read_text().replace("xf16", "xbf16"))
    return p


def args_for(rng, dt, Lk, Lq, d=64):
    q = (rng.standard_normal((Lq, d)) / 4).astype(dt)
    k = (rng.standard_normal((Lk, d)) / 4).astype(dt)
    v = rng.standard_normal((Lq, d)).astype(dt)
    return (-(-Lk // 128),), [q, k, v, np.zeros((Lk, d), np.float32), Lk, Lq]


def run(module, grid, args, seed=None):
    args = copy_args(args)
    wsdialects.interpret(module, "staged_dst", grid, args, seed=seed)
    return [args[3]]


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_source_matches_numpy(dt, rng, tmp_path):
    grid, args = args_for(rng, dt, 200, 300)  # ragged keys and queries (TMA zero-fills, rows masked)
    (out,) = run(parse_kernel(kernel_path(dt, tmp_path)), grid, args)
    q, k, v = (a.astype(np.float32) for a in args[:3])
    s = (q @ k.T).astype(dt).astype(np.float64)  # rounded to f16 / bf16 as the kernel does
    want = s.T @ v.astype(np.float64)
    assert np.allclose(out, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())


@pytest.mark.parametrize("spec", ["ws-specialize{depth=2 mma-depth=1}", "ws-specialize{depth=3 mma-depth=2}",
                                  "ws-partition,ws-distribute{depth=2}"])
def test_stage_operands_keeps_values(spec, rng):
    before = compile_kernel(KERNEL, spec + LOWER, shared=True)
    after = compile_kernel(KERNEL, spec + LOWER + ",ws-stage-operands,ws-lower-mma", shared=True)
    # every wgmma reads its A from shared memory now: tile.trans of the staging buffer's view
    mmas = [o for o in after.walk() if o.name == "nvgpu.wgmma.mma_async"]
    staged = [o for o in mmas if o.operands[0].owner.name == "tile.trans"
              and o.operands[0].owner.operands[0].owner.name == "nvgpu.smem.view"]
    register_a = [o for o in before.walk() if o.name in ("tile.dot", "mma.async_dot")
                  and getattr(o.operands[0].owner, "name", None) != "nvgpu.smem.view"]
    assert staged and len(staged) == len(register_a)
    grid, args = args_for(rng, np.float16, 150, 400)
    want = run(before, grid, args)
    for seed in (None, 1, 2):
        assert_same(want, run(after, grid, args, seed=seed))


@pytest.mark.parametrize("pipe", ["ws-hopper", "ws-hopper{persistent=true programs=1}",
                                  "ws-hopper{persistent=true programs=3}", "ws-hopper{cooperative=2}",
                                  "ws-hopper{depth=2 mma-depth=0}"])
@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_ws_hopper_keeps_values(pipe, dt, rng, tmp_path):
    path = kernel_path(dt, tmp_path)
    grid, args = args_for(rng, dt, 300, 333)
    want = run(parse_kernel(path), grid, args)
    assert_same(want, run(compile_kernel(path, pipe), grid, args, seed=4))


def _inflight_module():
    """The kernel after ws-specialize{depth=2 mma-depth=1} and the aref / warp-group lowering,
    with the wait that retires P V's group inside the iteration removed: the group stays in
    flight over the back edge (and accumulates on), as FlashAttention-3 forward's P V does."""
    text = emit(compile_kernel(KERNEL, "ws-specialize{depth=2 mma-depth=1}" + LOWER, shared=True), "mlir")
    m = re.search(r"\n *(%\w+) = mma\.wait (%acc2) \{pending = 0\} : [^\n]*", text)
    assert m is not None
    text = re.sub(re.escape(m.group(1)) + r"\b", m.group(2), text.replace(m.group(0), ""))
    module = wsdialects.parse(text)
    StageOperandsPass().apply(None, module)
    return emit(module, "mlir")


def test_waits_retire_readers_in_flight(rng):
    text = _inflight_module()
    # in the loop: only this iteration's Q K^T was issued since the last reader (wait_group 1);
    # after it: nothing (wait_group 0)
    assert re.findall(r"mma\.wait \{pending = (\d)\}", text) == ["1", "0"]
    grid, args = args_for(rng, np.float16, 200, 700)
    want = run(parse_kernel(KERNEL), grid, args)
    for seed in (None, 5):
        assert_same(want, run(wsdialects.parse(text), grid, args, seed=seed))
    for broken in (text.replace("mma.wait {pending = 1}", "", 1),
                   text.replace("mma.wait {pending = 1}", "mma.wait {pending = 2}", 1),
                   text.replace("mma.wait {pending = 0}", "", 1)):
        with pytest.raises(wsdialects.InterpretError, match=r"nvgpu\.smem\.store overwrites slot 0 of a buffer "
                                                            r"that an mma still in flight reads"):
            run(wsdialects.parse(broken), grid, args)


def test_ws_hopper_counts_the_staging_buffer():
    # one 128x128 f16 buffer (32 KB) in the consumer, shared by the loop's dot and the peeled one
    module = compile_kernel(KERNEL, "ws-specialize{depth=2 mma-depth=1}")
    assert staged_operand_bytes(module) == 128 * 128 * 2
    lowered = compile_kernel(KERNEL, "ws-hopper", shared=True)
    allocs = [o for o in lowered.walk() if o.name == "nvgpu.smem.alloc" and o.results[0].name_hint.endswith("_stage")]
    assert len(allocs) == 1 and list(allocs[0].results[0].type.get_shape()) == [1, 128, 128]


def test_staged_ptx_assembles():
    import shutil

    from kernel_cache import compile_ptx, run_ptxas

    ptx = compile_ptx(KERNEL, "ws-hopper")
    # stores (f16 pairs), fence, the branch's barrier, then wgmma with the transpose-A bit
    assert "fence.proxy.async.shared::cta;" in ptx and "bar.sync 2, 256;" in ptx
    mmas = re.findall(r"m64n64k16\.f32\.f16\.f16 \{[^}]*\}, %rd\d+, %rd\d+, p, 1, 1, (\d), (\d);", ptx)
    assert mmas and all(m == ("1", "1") for m in mmas)
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas is not installed")
    rc, out = run_ptxas(ptx, ptxas)
    assert rc == 0, out


# ----------------------------------------------------------------------------- register B

STAGED_B = KERNEL.parent / "staged_b.mlir"


def b_args(rng, M, n):
    x = rng.standard_normal((M, n * 64)).astype(np.float16)
    y = (rng.standard_normal((n * 64, 64)) / 4).astype(np.float16)
    w = (rng.standard_normal((64, 64)) / 4).astype(np.float16)
    return (-(-M // 64),), [x, y, w, np.zeros((M, 64), np.float32), n]


def run_b(module, grid, args, seed=None):
    args = copy_args(args)
    wsdialects.interpret(module, "staged_b", grid, args, seed=seed)
    return [args[3]]


def test_register_b_matches_numpy(rng):
    grid, args = b_args(rng, 100, 3)
    (out,) = run_b(parse_kernel(STAGED_B), grid, args)
    x, y, w = (a.astype(np.float32) for a in args[:3])
    want = np.zeros((100, 64))
    for j in range(3):
        s = (y[64 * j:64 * j + 64] @ w.T).astype(np.float16).astype(np.float64)
        xj = x[:, 64 * j:64 * j + 64].astype(np.float64)
        want += xj @ s + xj @ s.T
    assert np.allclose(out, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())


@pytest.mark.parametrize("pipe", ["ws-hopper", "ws-hopper{persistent=true programs=2}",
                                  "ws-specialize{depth=3 mma-depth=2},ws-lower-aref,ws-lower-warp-groups,"
                                  "ws-stage-operands,ws-lower-mma,ws-lower-layouts"])
def test_register_b_keeps_values(pipe, rng):
    after = compile_kernel(STAGED_B, pipe, shared=True)
    # both B operands of the loop's dots read the one staging buffer: N-contiguous, then K-major
    views = {o.operands[1].owner.name for o in after.walk() if o.name == "nvgpu.wgmma.mma_async"
             and getattr(o.operands[0].owner, "name", None) == "nvgpu.smem.view"
             and o.operands[0].owner.buffer.name_hint.startswith("aref_x")}
    assert views == {"nvgpu.smem.view", "tile.trans"}
    grid, args = b_args(rng, 130, 4)
    want = run_b(parse_kernel(STAGED_B), grid, args)
    for seed in (None, 6):
        assert_same(want, run_b(after, grid, args, seed=seed))
