"""Semantic tests of ws-partition and ws-distribute: every kernel interpreted
before and after the passes, on fresh random inputs, gives the same outputs."""

import numpy as np
import pytest

import wsdialects
import cases as cases_mod
from cases import CASES, INPUTS, assert_same, run
from conftest import gemm_reference, rel_err
from wsdialects.passes import available_passes
from wsdialects.warp_group import PartitionOp, RegionOp
from kernel_cache import compile_kernel, parse_kernel
from covering import EXHAUSTIVE, covered_by, covering


def transform(path, pipeline):
    return compile_kernel(path, pipeline)


def shared_transform(path, pipeline):
    """`transform` for a test that only reads the module: the cached one itself."""
    return compile_kernel(path, pipeline, shared=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_distribute_preserves_semantics(case, depth, rng):
    before = parse_kernel(case.path(), shared=True)
    after = shared_transform(case.path(), f"ws-partition,ws-distribute{{depth={depth}}}")
    assert any(isinstance(op, RegionOp) for op in after.walk()), "kernel was not warp-specialized"
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    # Partitions under round-robin and several seeded random interleavings.
    for seed in (None, 1, 2):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_partition_alone_preserves_semantics(case, rng):
    before = parse_kernel(case.path(), shared=True)
    after = shared_transform(case.path(), "ws-partition")
    grid, args = case.make(rng)
    assert_same(run(before, case, grid, args), run(after, case, grid, args))


def test_distributed_gemm_matches_numpy(shared, rng):
    module = transform(shared / "kernels" / "gemm.mlir", "ws-partition,ws-distribute{depth=3}")
    M, N, K = 200, 300, 520
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    wsdialects.interpret(module, "matmul", 4, [a, b, c, M, N, K, N], seed=7)
    assert rel_err(c, gemm_reference(a, b)) < 1e-2


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_missing_consumed_deadlocks(shared, depth):
    from xdsl.printer import Printer
    from io import StringIO

    module = transform(shared / "kernels" / "gemm.mlir", f"ws-partition,ws-distribute{{depth={depth}}}")
    out = StringIO()
    Printer(stream=out).print_op(module)
    text = out.getvalue()
    lines = text.splitlines()
    consumed = [i for i, ln in enumerate(lines) if "aref.consumed" in ln]
    assert len(consumed) == 1
    del lines[consumed[0]]
    broken = wsdialects.parse("\n".join(lines))
    M, N, K = 128, 256, 64 * (depth + 2)  # more iterations than slots
    args = [np.ones((M, K), np.float16), np.ones((N, K), np.float16), np.zeros((M, N), np.float16), M, N, K, N]
    with pytest.raises(wsdialects.Deadlock, match=r"aref %aref_a_b slot \d to be empty"):
        wsdialects.interpret(broken, "matmul", 1, args)


@pytest.mark.parametrize("name", ["no_loop.mlir", "pointer_loop.mlir"])
def test_unspecializable_kernels_are_left_alone(name, capsys):
    path = INPUTS / name
    module = transform(path, "ws-partition,ws-distribute{depth=2}")
    assert "remark: ws-partition" in capsys.readouterr().err
    assert str(module) == str(wsdialects.parse_file(path))


def test_pipeline_names_are_registered():
    assert {"ws-partition", "ws-distribute"} <= set(available_passes())


# --- ws-pipeline-mma ---------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("depth,mma", [(1, 0), (2, 0), (2, 1), (3, 1), (3, 2), (4, 3)])
def test_pipeline_mma_preserves_semantics(case, depth, mma, rng):
    before = parse_kernel(case.path(), shared=True)
    after = shared_transform(case.path(), f"ws-partition,ws-distribute{{depth={depth}}},ws-pipeline-mma{{depth={mma}}}")
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 3):
        assert_same(want, run(after, case, grid, args, seed=seed))


def test_pipeline_mma_depth_must_stay_below_ring_depth(shared):
    with pytest.raises(wsdialects.WsError, match="depth 3 must be smaller than the aref ring depth 3"):
        transform(shared / "kernels" / "gemm.mlir", "ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=3}")


def _printed(module):
    from io import StringIO
    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def test_interpreter_catches_a_release_while_the_dot_is_in_flight(shared, rng):
    """Undo the pass's lag by hand: releasing slot k right after issuing dot k."""
    module = transform(shared / "kernels" / "gemm.mlir", "ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=1}")
    text = _printed(module)
    assert "%prev = arith.subi %k_1, %lag" in text
    broken = wsdialects.parse(text.replace("%prev = arith.subi %k_1, %lag", "%prev = arith.subi %k_1, %c0_1"))
    grid, args = CASES[0].make(rng)
    with pytest.raises(wsdialects.InterpretError, match="while an mma.async_dot reading it is still in flight"):
        run(broken, CASES[0], grid, args)


def test_interpreter_catches_a_read_before_the_wait(shared, rng):
    module = transform(shared / "kernels" / "gemm.mlir", "ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=1}")
    text = _printed(module)
    assert "{pending = 0}" in text
    broken = wsdialects.parse(text.replace("%res_2 = mma.wait %res_1 {pending = 0}", "%res_2 = mma.wait %res_1 {pending = 1}"))
    grid, args = CASES[0].make(rng)
    with pytest.raises(wsdialects.InterpretError, match="before an mma.wait retires it|still in flight"):
        run(broken, CASES[0], grid, args)


# --- ws-persistent ----------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("programs,depth,mma", [(1, 2, 1), (2, 3, 2), (3, 1, 0), (132, 3, 2)])
def test_persistent_preserves_semantics(case, programs, depth, mma, rng):
    before = parse_kernel(case.path(), shared=True)
    after = shared_transform(case.path(), f"ws-partition,ws-distribute{{depth={depth}}},"
                                   f"ws-pipeline-mma{{depth={mma}}},ws-persistent{{programs={programs}}}")
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 5):
        assert_same(want, run(after, case, grid, args, seed=seed))


def _one_more_program(make):
    """A 1-D grid one program longer than the tiles: the last id is past the decoded grid's
    full columns (it keeps its place; gemm.mlir masks its out-of-range tile)."""
    def args(rng):
        (grid,), a = make(rng)
        return (grid + 1,), a
    return args


TILE_GROUP_CASES = {"bias_gemm": lambda rng: cases_mod.bias_gemm_args(rng, M=300),  # grid 5 x 3
                    "batched_gemm": cases_mod.batched_gemm_args,  # 2 x 2 x 3
                    "causal_attention": cases_mod.attention_args,  # 3 x 2, work grows with x
                    # a 1-D grid decoded as (pid % 3, pid / 3): 3 x 3, and one id more
                    "gemm": lambda rng: cases_mod.gemm_args(rng, M=300, N=600, K=70),
                    "gemm+1": _one_more_program(lambda rng: cases_mod.gemm_args(rng, M=300, N=600, K=70))}


@pytest.mark.parametrize("name", sorted(TILE_GROUP_CASES))
@pytest.mark.parametrize("programs,group", [(1, 2), (3, 2), (4, 3), (2, 8)])
def test_persistent_tile_groups_preserve_semantics(name, programs, group, rng):
    """ws-persistent{tile-group=T}: tiles in bands of T x values (the last band ragged when T
    does not divide the grid's x, or wider than it) still visit every tile once; so do a
    decoded 1-D grid's ids."""
    case = next(c for c in CASES if c.name == name.split("+")[0])
    before = parse_kernel(case.path(), shared=True)
    after = shared_transform(case.path(), "ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1},"
                                   f"ws-persistent{{programs={programs} tile-group={group}}}")
    grid, args = TILE_GROUP_CASES[name](rng)
    want = run(before, case, grid, args)
    for seed in (None, 5):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("name,grouped", [("gemm", True), ("bias_gemm", True), ("batched_gemm", True),
                                          ("attention", False), ("causal_attention", False)])
def test_persistent_chooses_the_grouped_order_for_gemms(name, grouped):
    """ws-persistent's default order: L2 bands when the loads split into x-only and y-only ones
    (a GEMM on a 2-D / 3-D grid, or gemm.mlir's 1-D grid decoded as pid % W, pid / W),
    serpentine otherwise (attention's K and V depend on the head alone)."""
    from wsdialects.transforms.persistent import _shares_rows_and_columns
    from wsdialects.transforms.partition import kernels

    case = next(c for c in CASES if c.name == name)
    (kernel,) = kernels(parse_kernel(case.path()))
    assert _shares_rows_and_columns(kernel) is grouped
    after = shared_transform(case.path(), "ws-partition,ws-distribute{depth=2},ws-persistent")
    text = _printed(after)
    assert ("%tile_group" in text) is grouped and ("%row_parity" in text) is not grouped


@pytest.mark.parametrize("edit,decoded", [
    (None, True),
    # a different W for the row index: not one decoded grid
    (("%pid_n = arith.divsi %pid, %num_pid_m", "%pid_n = arith.divsi %pid, %Mt"), False),
    # the id used as it is besides the decode
    (("%pid_n = arith.divsi %pid, %num_pid_m", "%pid_n = arith.addi %pid, %num_pid_m"), False),
    # the id divided, not divided by: no decode
    (("%pid_m = arith.remsi %pid, %num_pid_m", "%pid_m = arith.remsi %num_pid_m, %pid"), False)])
def test_decoded_grid_is_recognised_only_as_pid_mod_and_div_one_width(shared, edit, decoded):
    """gemm.mlir's 1-D grid decode (pid % W, pid / W) is ordered in bands; any other use of the
    program id keeps the grid's own (serpentine) order."""
    from wsdialects.transforms.persistent import _decoded_grid
    from wsdialects.transforms.partition import kernels

    text = (shared / "kernels" / "gemm.mlir").read_text()
    if edit:
        assert edit[0] in text
        text = text.replace(*edit)
    from wsdialects.tools.ws_opt import build_pipeline

    (kernel,) = kernels(wsdialects.parse(text))
    assert _decoded_grid(kernel) is decoded
    module = wsdialects.parse(text)
    build_pipeline("ws-partition,ws-distribute{depth=2},ws-persistent", "<string>").apply(None, module)
    after = _printed(module)
    assert ("%grouped_pid" in after) is decoded and ("%row_parity" in after) is not decoded


# --- ws-specialize -----------------------------------------------------------------

# Every kernel x ws-specialize's options, as a covering array of strength 3 (test/python/covering.py):
# each kernel at every depth with every MMA depth below it, and every three of (kernel, depth,
# MMA depth, cooperative groups, persistent) in each combination of their values: 137 of the
# 440 combinations of the full product (WSDIALECTS_TEST_EXHAUSTIVE=1 runs all 440). The
# lines and branches of wsdialects that the 440 reached, the suite still reaches (coverage.py).
SPECIALIZE_FACTORS = [CASES, (1, 2, 3, 4), (0, 1, 2, 3), (1, 2), (False, True)]
SPECIALIZE = covering(SPECIALIZE_FACTORS, strength=3, allowed=lambda c: c[2] < c[1])


@pytest.mark.parametrize("case,depth,mma,groups,persistent", SPECIALIZE,
                         ids=[f"{c.name}-{d}-{m}-{g}-{p}" for c, d, m, g, p in SPECIALIZE])
def test_specialize_preserves_semantics(case, depth, mma, groups, persistent, rng):
    before = parse_kernel(case.path(), shared=True)
    opts = (f"depth={depth} mma-depth={mma} cooperative={groups} "
            f"persistent={'true' if persistent else 'false'} programs=2")
    after = shared_transform(case.path(), f"ws-specialize{{{opts}}}")
    grid, args = case.make(rng)
    assert_same(run(before, case, grid, args), run(after, case, grid, args, seed=depth * 10 + mma))


def test_specialize_grid_covers_every_three_options_of_the_full_product(monkeypatch):
    """The reduced grid leaves out no combination of three parameters' values (nor of fewer)
    that the product has, and is under a third of it; WSDIALECTS_TEST_EXHAUSTIVE=1 gives the
    product."""
    def grid(exhaustive=None):
        return covering(SPECIALIZE_FACTORS, strength=3, allowed=lambda c: c[2] < c[1], exhaustive=exhaustive)

    full, reduced = grid(exhaustive=True), grid(exhaustive=False)
    assert len(full) == 440 and len(reduced) < len(full) // 3
    for strength in (1, 2, 3):
        assert set().union(*(covered_by(c, strength) for c in reduced)) == \
            set().union(*(covered_by(c, strength) for c in full)), strength
    assert SPECIALIZE in (full, reduced)
    monkeypatch.setenv(EXHAUSTIVE, "1")
    assert grid() == full
    monkeypatch.setenv(EXHAUSTIVE, "0")
    assert grid() == reduced


def test_specialize_equals_the_passes_it_bundles(shared):
    bundled = transform(shared / "kernels" / "gemm.mlir", "ws-specialize{depth=3 mma-depth=2 persistent=true}")
    spelled = transform(shared / "kernels" / "gemm.mlir",
                        "ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2},ws-pipeline-coarse,ws-persistent")
    assert _printed(bundled) == _printed(spelled)


# --- ws-cooperative ---------------------------------------------------------------

# Consumers whose dots keep >= 64 rows per group split (TMA-store epilogues via
# warp_group.gather); too-small shares stay one group (with a remark).
SPLITTABLE = {("gemm", 2), ("attention", 2), ("causal_attention", 2), ("softmax_gemm", 2)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("groups", [2, 4])
def test_cooperative_preserves_semantics(case, groups, rng, capsys):
    before = parse_kernel(case.path(), shared=True)
    after = shared_transform(case.path(), f"ws-partition,ws-distribute{{depth=2}},ws-pipeline-mma{{depth=1}},"
                                   f"ws-cooperative{{groups={groups}}}")
    consumers = [p for p in after.walk() if isinstance(p, PartitionOp) and p.role_name.startswith("consumer")]
    if (case.name, groups) in SPLITTABLE:
        assert len(consumers) == groups
        assert all(c.warps == 4 for c in consumers)
    else:
        assert len(consumers) == 1 and "remark: ws-cooperative" in capsys.readouterr().err
    grid, args = case.make(rng)
    want = run(before, case, grid, args)
    for seed in (None, 11):
        assert_same(want, run(after, case, grid, args, seed=seed))


@pytest.mark.parametrize("name,pipeline", [
    ("attention", "ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1},ws-cooperative{groups=2 stores=split}"),
    ("causal_attention", "ws-specialize{depth=2 mma-depth=1 cooperative=2 pingpong=true team-stores=split}"),
    ("gemm", "ws-tma-store,ws-specialize{depth=3 mma-depth=1 cooperative=2 pingpong=true team-stores=split "
             "persistent=true programs=3}"),
])
def test_cooperative_split_stores_preserve_semantics(name, pipeline, rng):
    """stores=split: each group stores its own rows (no gather); the kernel computes what it did,
    under round-robin and random interleavings; group 1 storing at group 0's rows is caught."""
    case = next(c for c in CASES if c.name == name)
    module = shared_transform(case.path(), pipeline)
    assert not [op for op in module.walk() if op.name == "warp_group.gather"]
    stores = [op for op in module.walk() if op.name == "tile.desc_store"]
    assert len(stores) == 2 and stores[0].operands[0].type.block.get_shape()[0] == 64
    # gemm: rows of 296 fp16 end on 16 bytes, so ws-tma-store's flag takes the TMA stores
    grid, args = cases_mod.gemm_args(rng, N=296) if name == "gemm" else case.make(rng)
    want = run(parse_kernel(case.path(), shared=True), case, grid, args)
    for seed in (None, 5):
        assert_same(want, run(module, case, grid, args, seed=seed))
    moved = next(op for op in module.walk() if op.name == "arith.addi" and (op.result.name_hint or "").endswith("_g1"))
    moved.result.replace_all_uses_with(moved.lhs)  # group 1 stores over group 0's rows
    with pytest.raises(AssertionError, match="outputs differ"):
        assert_same(want, run(module, case, grid, args))


def test_cooperative_tma_store_is_gathered(shared, rng):
    """Both groups take part in the gather; without group 1 group 0 never stores."""
    case = next(c for c in CASES if c.name == "attention")
    module = transform(case.path(), "ws-partition,ws-distribute{depth=2},ws-cooperative{groups=2}")
    gathers = [op for op in module.walk() if op.name == "warp_group.gather"]
    stores = [op for op in module.walk() if op.name == "tile.desc_store"]
    assert [g.group.value.data for g in gathers] == [0, 1] and len(stores) == 1
    grid, args = case.make(rng)
    want = run(parse_kernel(case.path(), shared=True), case, grid, args)
    assert_same(want, run(module, case, grid, args, seed=3))
    gathers[1].results[0].replace_all_uses_with(gathers[1].src)  # group 1 skips the meeting
    gathers[1].detach()
    gathers[1].erase()
    with pytest.raises(wsdialects.Deadlock, match=r"warp_group.gather #0 \(1 of 2 groups arrived\)"):
        run(module, case, grid, args)


@pytest.mark.parametrize("pipeline", ["ws-partition,ws-distribute{depth=2}", "ws-specialize{depth=3 cooperative=2}"])
def test_kernel_async_dots_hold_their_slot_until_the_wait(pipeline, rng):
    """A kernel's own mma.async_dot reads its ring slot until the mma.wait retiring it:
    ws-distribute releases the slot after the wait (else the interpreter reports a release
    while the dot is in flight), and the outputs are dual_dot's as written."""
    from cases import INPUTS, dual_dot_args

    path = INPUTS / "dual_dot_async.mlir"
    before = parse_kernel(path, shared=True)
    after = shared_transform(path, pipeline)
    assert any(isinstance(op, RegionOp) for op in after.walk()), "kernel was not warp-specialized"
    grid, args = dual_dot_args(rng)
    fresh = lambda: [a.copy() if isinstance(a, np.ndarray) else a for a in args]  # noqa: E731
    want = fresh()
    wsdialects.interpret(before, "dual_dot_async", grid, want)
    assert rel_err(want[3], (want[0].astype(np.float32) @ want[1].astype(np.float32).T)
                   * (want[0].astype(np.float32) @ want[2].astype(np.float32).T)) < 1e-3
    for seed in (None, 1, 2):
        got = fresh()
        wsdialects.interpret(after, "dual_dot_async", grid, got, seed=seed)
        assert np.array_equal(want[3], got[3])

