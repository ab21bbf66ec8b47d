"""Semantic tests of ws-pipeline-coarse: kernels interpreted before and after the
pass (on fresh random inputs, under several partition interleavings) agree, the
loops that have a T -> C -> U chain really are pipelined, and the interpreter
catches a pipelined loop whose waits are wrong."""

from pathlib import Path

import numpy as np
import pytest

import wsdialects
from cases import CASES, INPUTS, Case, assert_same, cdiv, run
from test_distribute import _printed, transform
from kernel_cache import compile_kernel, parse_kernel

PIPELINED = {"attention", "causal_attention", "fused_mlp", "fused_mlp_empty"}
LIT = Path(__file__).resolve().parents[1] / "transforms" / "ws-pipeline-coarse.mlir"


def peeled_loops(module) -> int:
    return sum(1 for op in module.walk() if "ws.peeled" in op.attributes)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("depth,mma", [(1, 0), (2, 0), (2, 1), (3, 2), (4, 3)])
def test_coarse_preserves_semantics(case, depth, mma, rng):
    before = parse_kernel(case.path(), shared=True)
    after = compile_kernel(case.path(), f"ws-partition,ws-distribute{{depth={depth}}},"
                                        f"ws-pipeline-mma{{depth={mma}}},ws-pipeline-coarse", shared=True)
    # Loops with a T -> C -> U chain are pipelined; GEMM-like loops are not touched.
    assert peeled_loops(after) == (1 if case.name in PIPELINED else 0)
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 7, 8):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("name", ["attention", "causal_attention"])
def test_coarse_on_synchronous_dots(name, rng):
    """Without ws-pipeline-mma the pass issues the dots asynchronously itself."""
    case = next(c for c in CASES if c.name == name)
    after = transform(case.path(), "ws-partition,ws-distribute{depth=2},ws-pipeline-coarse")
    assert peeled_loops(after) == 1
    assert not any(op.name == "tile.dot" for op in after.walk())
    grid, args = case.make(rng)
    assert_same(run(parse_kernel(case.path(), shared=True), case, grid, args), run(after, case, grid, args, seed=4))


def _mlp_args(rng, n):
    x = rng.standard_normal((64, 64)).astype(np.float16)
    w1, w2 = (rng.standard_normal((n * 64, 64)).astype(np.float16) for _ in range(2))
    return (1,), [x, w1, w2, np.zeros((64, 64), np.float32), n]


def _shared_tile_args(rng, n):
    x = rng.standard_normal((64, 64)).astype(np.float16)
    w = rng.standard_normal((n * 64, 64)).astype(np.float16)
    return (1,), [x, w, np.zeros((64, 64), np.float32), n]


@pytest.mark.parametrize("n", [0, 1, 2, 5])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_staged_loop_follows_ws_stage(n, depth, rng):
    """ws.stage / ws.order (as ws-schedule writes them) choose the stages: here the
    relu runs one iteration late, which the T/C/U cues would not do."""
    case = Case("staged_mlp", lambda: INPUTS / "staged_mlp.mlir", "staged_mlp", lambda r: _mlp_args(r, n), (3,))
    after = transform(case.path(), f"ws-partition,ws-distribute{{depth={depth}}},ws-pipeline-coarse")
    assert peeled_loops(after) == 1  # the consumer; the producer's loads are all stage 0
    assert "%h = arith.maximumf %s_prev" in _printed(after)
    grid, args = case.make(rng)
    want = run(parse_kernel(case.path(), shared=True), case, grid, args)
    ref = np.maximum(args[0].astype(np.float32) @ args[1].astype(np.float32).T, 0) if n else None
    for seed in (None, 1, 2):
        assert_same(want, run(after, case, grid, args, seed=seed))
    if n == 1:  # and the kernel computes what it should: up to one f16 ulp of each hidden value
        # (its f32 sum in another order may round to the neighbouring f16), times |W2|
        h16 = ref.astype(np.float16)
        w2 = args[2].astype(np.float32)
        bound = np.spacing(h16).astype(np.float32) @ np.abs(w2) + 1e-3 * np.abs(h16.astype(np.float32) @ w2) + 1e-3
        assert (np.abs(want[0] - h16.astype(np.float32) @ w2) <= bound).all()


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("depth", [2, 3])
def test_slot_read_by_both_stages_is_not_pipelined(n, depth, rng):
    """Both dots read one slot: pipelined, the second would read it an iteration late through
    a loop value, which wgmma cannot take; the loop is left as it is (same results), and
    ws-hopper lowers it (interpreted: the same results again)."""
    case = Case("shared_tile", lambda: LIT, "shared_tile", lambda r: _shared_tile_args(r, n), (2,))
    after = transform(case.path(), f"ws-partition,ws-distribute{{depth={depth}}},ws-pipeline-coarse")
    assert peeled_loops(after) == 0
    lowered = compile_kernel(case.path(), f"ws-hopper{{depth={depth}}}", shared=True)
    assert any(o.name == "nvgpu.wgmma.mma_async" for o in lowered.walk())
    grid, args = case.make(rng)
    want = run(parse_kernel(case.path(), shared=True), case, grid, args)
    for seed in (None, 5, 6):
        assert_same(want, run(after, case, grid, args, seed=seed))
        assert_same(want, run(lowered, case, grid, args, seed=seed))


def test_specialize_runs_the_coarse_pipeline(shared):
    bundled = transform(shared / "kernels" / "attention.mlir", "ws-specialize{depth=3 mma-depth=2 persistent=true}")
    spelled = transform(shared / "kernels" / "attention.mlir",
                        "ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2},ws-pipeline-coarse,ws-persistent")
    assert peeled_loops(bundled) == 1
    assert _printed(bundled) == _printed(spelled)


def test_interpreter_catches_a_wait_that_leaves_t_in_flight(shared, rng):
    """Softmax must not read QK^T of this iteration while it may still be in flight."""
    case = next(c for c in CASES if c.name == "attention")
    text = _printed(transform(case.path(), "ws-partition,ws-distribute{depth=2},ws-pipeline-coarse"))
    assert text.count("{pending = 1}") == 1
    broken = wsdialects.parse(text.replace("{pending = 1}", "{pending = 2}"))
    grid, args = case.make(rng)
    with pytest.raises(wsdialects.InterpretError, match="before an mma.wait retires it|while an mma.async_dot reading it"):
        run(broken, case, grid, args)


def test_interpreter_catches_a_release_before_u_retired(shared, rng):
    """Releasing V_{j-1} before U_{j-1}'s wait would let the producer overwrite it."""
    case = next(c for c in CASES if c.name == "attention")
    module = transform(case.path(), "ws-partition,ws-distribute{depth=2},ws-pipeline-coarse")
    loop = next(op for op in module.walk() if "ws.peeled" in op.attributes)
    ops = list(loop.body.block.ops)
    release = next(o for o in ops if o.name == "aref.consumed" and o.ring.name_hint == "aref_v")
    u = next(o for o in ops if o.name == "mma.async_dot" and release.position in
             [g.position for g in ops if g.name == "aref.get" and g.results[0] in o.operands])
    release.detach()
    loop.body.block.insert_op_after(release, u)
    grid, args = case.make(rng)
    with pytest.raises(wsdialects.InterpretError, match="still in flight"):
        run(module, case, grid, args)


@pytest.mark.parametrize("c_reads_it", [False, True], ids=["only_u", "c_reads_it"])
def test_rescale_runs_with_u_only_when_u_alone_reads_it(c_reads_it, tmp_path, rng):
    """`acc * alpha` feeds only U: it runs in U's stage (alpha is carried, not the rescaled
    tile). When C reads the rescaled tile too (here its row maximum enters l), it stays in
    stage 0 and the rescaled tile is carried, as before. Same results either way."""
    case = next(c for c in CASES if c.name == "attention")
    path = case.path()
    if c_reads_it:
        text = path.read_text()
        rescale = "%acc_s = arith.mulf %acc, %alpha_b : tensor<128x128xf32>\n"
        assert text.count(rescale) == 1 and text.count("scf.yield %m_ij, %l_new,") == 1
        text = text.replace(rescale, rescale +
                            '      %acc_top = "tile.reduce"(%acc_s) <{axis = 1 : i32, kind = "max"}> : '
                            "(tensor<128x128xf32>) -> tensor<128xf32>\n"
                            "      %l_mix = arith.maximumf %l_new, %acc_top : tensor<128xf32>\n")
        text = text.replace("scf.yield %m_ij, %l_new,", "scf.yield %m_ij, %l_mix,")
        path = tmp_path / "attention_c_reads_acc_s.mlir"
        path.write_text(text)
        case = Case(case.name, lambda: path, case.kernel, case.make, case.outputs)
    after = transform(path, "ws-partition,ws-distribute{depth=2},ws-pipeline-coarse")
    loops = [op for op in after.walk() if "ws.peeled" in op.attributes]
    assert len(loops) == 1
    carried = {a.name_hint for a in loops[0].body.block.args}
    assert ("acc_s_prev" in carried) == c_reads_it
    assert ("alpha_prev" in carried) == (not c_reads_it)
    grid, args = case.make(rng)
    want = run(parse_kernel(path), case, grid, args)
    for seed in (None, 5):
        assert_same(want, run(after, case, grid, args, seed=seed))
