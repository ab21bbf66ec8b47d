"""Semantic tests of ws-pipeline-coarse{softmax-overlap=qk} (the next tile's QK^T issued before
this tile's softmax, P·V waited for in the next iteration): attention kernels interpreted before
and after, at 1, 2, 3 and 5 key tiles (the loop running no steady iteration, one, several), under
several partition interleavings, give the same output; so does the lowered kernel (ws-hopper, a
ping-pong team and the persistent default); the interpreter catches the carried P·V read or its
slot released without the wait; ptxas assembles the d 64 kernels without spills or a serialized
wgmma pipeline, and at d 128 serializes them for want of registers (C7512, reported)."""

import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from cases import CASES, INPUTS, assert_same, attention_args, run
from kernel_cache import compile_kernel, compile_ptx, parse_kernel, run_ptxas
from test_distribute import _printed, transform
from wsdialects.lower.ptxas import parse_report

QK = "softmax-overlap=qk"
PP = "cooperative=2 pingpong=true persistent=false"
KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
BF16 = KERNELS / "flash_attention_bf16.mlir"


def _case(name):
    return next(c for c in CASES if c.name == name)


def _qk_loops(module) -> int:
    return sum(1 for op in module.walk() if "ws.qk_ahead" in op.attributes)


@pytest.mark.parametrize("name", ["attention", "causal_attention"])
@pytest.mark.parametrize("L", [128, 256, 384, 640])
@pytest.mark.parametrize("depth,mma", [(2, 0), (2, 1), (3, 2)])
def test_qk_ahead_preserves_semantics(name, L, depth, mma, rng):
    case = _case(name)
    after = compile_kernel(case.path(), f"ws-partition,ws-distribute{{depth={depth}}},ws-pipeline-mma{{depth={mma}}},"
                                        f"ws-pipeline-coarse{{{QK}}}", shared=True)
    assert _qk_loops(after) == 1
    grid, args = attention_args(rng, L=L, H=1)
    want = run(parse_kernel(case.path(), shared=True), case, grid, args)
    for seed in (None, 3, 4):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("pipeline", [f"ws-hopper{{{PP} {QK}}}", f"ws-hopper{{{QK}}}"], ids=["pingpong", "default"])
def test_qk_ahead_lowered(pipeline, rng):
    """Through ws-hopper (the team's copies, turns, mbarriers, setmaxnreg): the same output."""
    case = _case("attention")
    lowered = compile_kernel(case.path(), pipeline, shared=True)
    assert any(o.name == "nvgpu.wgmma.mma_async" for o in lowered.walk())
    grid, args = attention_args(rng, L=384, H=1)
    want = run(parse_kernel(case.path(), shared=True), case, grid, args)
    for seed in (None, 5):
        assert_same(want, run(lowered, case, grid, args, seed=seed))


def test_pv_is_the_default(shared):
    """Without the option the loop is Algorithm 1's (P·V one iteration late), as before."""
    path = shared / "kernels" / "attention.mlir"
    plain = _printed(transform(path, "ws-partition,ws-distribute{depth=2},ws-pipeline-coarse"))
    spelled = _printed(transform(path, "ws-partition,ws-distribute{depth=2},ws-pipeline-coarse{softmax-overlap=pv}"))
    assert plain == spelled and "ws.qk_ahead" not in plain


def _steady(module):
    loop = next(op for op in module.walk() if "ws.qk_ahead" in op.attributes)
    return loop, list(loop.body.block.ops)


def test_interpreter_catches_the_carried_pv_read_without_its_wait(rng):
    """The rescale must not read P·V_{j-1}'s accumulator while it may be in flight."""
    case = _case("attention")
    module = transform(case.path(), f"ws-partition,ws-distribute{{depth=2}},ws-pipeline-coarse{{{QK}}}")
    loop, ops = _steady(module)
    carried = next(o for o in ops if o.name == "mma.wait" and o.operands[0] in loop.body.block.args)
    carried.results[0].replace_all_uses_with(carried.operands[0])
    carried.detach()
    carried.erase()
    grid, args = attention_args(rng, L=384, H=1)
    with pytest.raises(wsdialects.InterpretError, match="in flight|before an mma.wait retires it"):
        run(module, case, grid, args)


def test_interpreter_catches_a_release_before_the_carried_wait(rng):
    """Releasing V_{j-1} before P·V_{j-1} retired would let the producer overwrite it."""
    case = _case("attention")
    module = transform(case.path(), f"ws-partition,ws-distribute{{depth=2}},ws-pipeline-coarse{{{QK}}}")
    loop, ops = _steady(module)
    carried = next(o for o in ops if o.name == "mma.wait" and o.operands[0] in loop.body.block.args)
    release = next(o for o in ops if o.name == "scf.if" and not o.results)
    release.detach()
    loop.body.block.insert_op_before(release, carried)
    grid, args = attention_args(rng, L=384, H=1)
    with pytest.raises(wsdialects.InterpretError, match="still in flight"):
        run(module, case, grid, args)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
@pytest.mark.parametrize("kernel", ["flash_attention_d64", "flash_attention_causal_d64"])
@pytest.mark.parametrize("organisation", [PP, ""], ids=["pingpong", "default"])
def test_ptxas_d64_no_spill_no_serialization(kernel, organisation):
    """At d 64 two score tiles, O and the in-flight P fit the consumers' 240 registers (the
    producer at 24, the CTA's 168 a thread from launch in all): no spill, and no wgmma
    serialized (the carried P·V is read behind a wait_group 0, and only there)."""
    ptx = compile_ptx(KERNELS / f"{kernel}.mlir", f"ws-hopper{{{organisation} {QK}}}".replace("{ ", "{"))
    rc, out = run_ptxas(ptx, shutil.which("ptxas"))
    assert rc == 0, out
    info = next(iter(parse_report(out).values()))
    assert (info.spill_stores, info.spill_loads, info.serialized) == (0, 0, []), out
    if organisation:
        assert "setmaxnreg.inc.sync.aligned.u32 240" in ptx and "setmaxnreg.dec.sync.aligned.u32 24" in ptx


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
def test_ptxas_d128_serializes():
    """At d 128 (O 64 registers a thread) the form needs more than 240: ptxas serializes the
    wgmmas for want of registers (C7512), and the report names it (the note comes before the
    function's other lines)."""
    ptx = compile_ptx(BF16, f"ws-hopper{{{PP} {QK}}}")
    rc, out = run_ptxas(ptx, shutil.which("ptxas"))
    assert rc == 0, out
    info = next(iter(parse_report(out).values()))
    assert any(s.startswith("(C7512)") for s in info.serialized), out
    plain = compile_ptx(BF16, f"ws-hopper{{{PP}}}")
    assert next(iter(parse_report(run_ptxas(plain, shutil.which("ptxas"))[1]).values())).serialized == []


def _bf16_attention(module, q, k, v, L, seed):
    o = np.full(q.shape, np.nan, q.dtype)
    wsdialects.interpret(module, "flash_attention_bf16", grid=(-(-L // 128), q.shape[0]),
                         args=[q, k, v, o, L, float(1 / np.sqrt(q.shape[-1]))], seed=seed)
    return o


@pytest.mark.parametrize("bn", [96, 112])
def test_smaller_key_tiles_before_and_after(bn, rng):
    """The bf16 d 128 kernels with 96- and 112-key tiles (where the form fits the registers):
    as written, and lowered by ws-hopper as a ping-pong team with the form, bit for bit the
    same output, at a length whose last key tile is partly past L (masked)."""
    L, BH, D = 200, 2, 128
    q, k, v = (rng.standard_normal((BH, L, D)).astype(ml_dtypes.bfloat16) for _ in range(3))
    path = INPUTS / f"flash_attention_bf16_bn{bn}.mlir"
    before = parse_kernel(path, shared=True)
    after = compile_kernel(path, f"ws-hopper{{{PP} {QK}}}", shared=True)
    assert _qk_loops(after) == 2 and any(o.name == "nvgpu.wgmma.mma_async" for o in after.walk())
    want = _bf16_attention(before, q, k, v, L, None)
    assert not np.isnan(want.astype(np.float32)).any()
    for seed in (None, 6):
        got = _bf16_attention(after, q, k, v, L, seed)
        assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
    staged = compile_kernel(path, f"ws-specialize{{depth=2 mma-depth=1 cooperative=2 pingpong=true {QK}}}", shared=True)
    assert _qk_loops(staged) == 2  # each group's copy of the loop
    assert np.array_equal(_bf16_attention(staged, q, k, v, L, 7).view(np.uint16), want.view(np.uint16))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
@pytest.mark.parametrize("bn", [96, 112])
def test_ptxas_smaller_key_tiles_d128(bn):
    """At d 128 the form fits with 96- or 112-key tiles: no spill, no serialized wgmma."""
    ptx = compile_ptx(INPUTS / f"flash_attention_bf16_bn{bn}.mlir", f"ws-hopper{{{PP} {QK}}}")
    rc, out = run_ptxas(ptx, shutil.which("ptxas"))
    assert rc == 0, out
    info = next(iter(parse_report(out).values()))
    assert (info.spill_stores, info.spill_loads, info.serialized) == (0, 0, []), out
