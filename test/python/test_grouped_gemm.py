"""The grouped GEMM kernels (wsdialects/runtime/grouped_gemm_kernels.py, bundled in
examples/kernels) interpreted against a float64 numpy reference of torch._grouped_mm's product:
ragged groups (empty, smaller than a tile, cutting tiles), fewer and more programs than tiles,
f16 and bf16; C poisoned with NaN (an element of a group not written fails; rows of no group,
and rows past M where the offsets run past it, must stay NaN). Every form (how a program walks
the tiles and stores them: gen.FORMS) as written at small blocks, after ws-specialize
(partitions interleaved by seeds) and after ws-hopper's variants at the bundled blocks; ptxas on
the lowered kernels; the runtime's launch plan run in the interpreter."""

from pathlib import Path
import shutil

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from kernel_cache import compile_kernel, compile_ptx, parse_kernel, run_ptxas
from wsdialects.runtime import grouped as runtime
from wsdialects.runtime import grouped_gemm_kernels as gen

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "examples" / "kernels"
DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


def problem(sizes, N, K, dtype, rng, extra_rows=0):
    """a [sum M_g + extra_rows, K], b [G, N, K], offs (int32 cumulative ends), c poisoned."""
    dt = DTYPES[dtype]
    offs = np.cumsum(sizes).astype(np.int32)
    S = int(offs[-1]) + extra_rows
    a = rng.standard_normal((S, K)).astype(dt)
    b = (rng.standard_normal((len(sizes), N, K)) / np.sqrt(K)).astype(dt)
    c = np.full((S, N), np.nan, dt)
    return a, b, offs, c


def check(a, b, offs, c, M=None):
    """Every group's rows of c are A_g B_g^T (float64 reference), every other row is untouched."""
    M = a.shape[0] if M is None else M
    got = c.astype(np.float64)
    start = 0
    for g, end in enumerate(offs):
        end = min(int(end), M)
        if end > start:
            want = a[start:end].astype(np.float64) @ b[g].astype(np.float64).T
            rows = got[start:end]
            assert not np.isnan(rows).any(), f"group {g}: rows {start}..{end} not all written"
            err = np.abs(rows - want).max()
            assert err <= 2e-2 * max(np.abs(want).max(), 1.0), f"group {g}: max error {err:.3g}"
        start = max(start, end)
    assert np.isnan(got[start:]).all(), f"rows past the last group ({start}..) were written"


def run(module, name, a, b, offs, c, grid, M=None, seed=None, form=None):
    G, N, K = b.shape
    args = gen.arguments(a, b, c, offs, G, a.shape[0] if M is None else M, N, K, form)
    wsdialects.interpret(module, name, grid, args, seed=seed)


def _file(tmp: Path, text: str, tag: str) -> Path:
    path = tmp / f"grouped_{tag}.mlir"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("grouped_gemm")


def test_bundled_kernels_are_the_generator_output():
    for name, text in gen.bundled().items():
        assert (KERNELS / name).read_text() == text, f"examples/kernels/{name} differs from the generator's"


# group sizes: empty groups first, last and between; groups smaller than a tile; tiles cut
SIZES = [[0, 100, 37, 0, 64, 5, 0], [1], [130, 0, 0, 3], [0, 0, 70]]


FORMS = sorted(gen.FORMS)
# band 2 (the bundled forms' 16 is more rows of tiles than these small problems have)
SMALL_FORMS = FORMS + ["groups+tma+band2"]


def small_form(name):
    return gen.Form("groups", 2, "tma") if name == "groups+tma+band2" else name


def _small(tmp, dtype, form, text=None, tag=""):
    """The kernel in `form` at 64x64x32 tiles, 4 warps, parsed."""
    text = text or gen.grouped_mm(dtype, 64, 64, 32, 4, form_=small_form(form))
    return parse_kernel(_file(tmp, text, f"{dtype}_64x64x32_{form}{tag}"), shared=True)


@pytest.mark.parametrize("form", SMALL_FORMS)
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("sizes", SIZES, ids=lambda s: "-".join(map(str, s)))
@pytest.mark.parametrize("grid", [3, 40])
def test_as_written(tmp, dtype, sizes, grid, form):
    """64x64x32 tiles, N and K cut by the tile; 3 programs (fewer than the tiles) or 40."""
    m = _small(tmp, dtype, form)
    rng = np.random.default_rng(len(sizes) + grid)
    a, b, offs, c = problem(sizes, 72, 40, dtype, rng, extra_rows=9)
    run(m, gen.kernel_name(dtype), a, b, offs, c, grid, form=small_form(form))
    check(a, b, offs, c)


@pytest.mark.parametrize("form", SMALL_FORMS)
def test_offsets_past_the_rows_write_nothing(tmp, form):
    """Offsets that run past M (the rows of A and C) clip the store at M: C's rows past M (here a
    bigger buffer, which a TMA store's descriptor spans) stay as they were."""
    m = _small(tmp, "bf16", form)
    rng = np.random.default_rng(5)
    a, b, offs, c = problem([50, 90, 130], 64, 32, "bf16", rng)
    M = 100  # the second group's rows 100..140 and all of the third's are past M
    run(m, gen.kernel_name("bf16"), a[:M].copy(), b, offs, c, 4, M=M, form=small_form(form))
    check(a[:M], b, offs, c, M=M)
    assert np.isnan(c[M:].astype(np.float32)).all()


def test_wrong_without_the_clip(tmp):
    """The check can fail: a kernel storing whole tiles (no row mask) writes into the next group's rows."""
    text = gen.grouped_mm("bf16", 64, 64, 32, 4, form_="scan").replace("%mask = arith.andi %mmb, %mnb",
                                                                        "%mask = arith.andi %mnb, %mnb")
    m = _small(tmp, "bf16", "scan", text, "_nomask")
    rng = np.random.default_rng(6)
    a, b, offs, c = problem([30, 40], 64, 32, "bf16", rng, extra_rows=40)
    run(m, gen.kernel_name("bf16"), a, b, offs, c, 2, form="scan")
    with pytest.raises(AssertionError):
        check(a, b, offs, c)


def test_wrong_tma_store_of_a_cut_tile(tmp):
    """The check can fail: a TMA store taken for a tile that only starts in its group (not one
    that ends there) writes the next group's rows with this group's product."""
    text = gen.grouped_mm("bf16", 64, 64, 32, 4, form_="groups+tma")
    assert "%whole = arith.cmpi sle, %om_end, %row_end" in text
    text = text.replace("%whole = arith.cmpi sle, %om_end, %row_end", "%whole = arith.cmpi slt, %om, %row_end")
    m = _small(tmp, "bf16", "groups+tma", text, "_wholecut")
    rng = np.random.default_rng(7)
    a, b, offs, c = problem([30, 100], 64, 32, "bf16", rng, extra_rows=40)
    run(m, gen.kernel_name("bf16"), a, b, offs, c, 1, form="groups+tma")  # group 1's tiles after group 0's
    with pytest.raises(AssertionError):
        check(a, b, offs, c)


def test_wrong_walk_is_caught(tmp):
    """The check can fail: a walk whose first tile in a group is not taken modulo the programs
    (p + P - base mod P, at least P - base mod P) skips the group's first tiles."""
    text = gen.grouped_mm("bf16", 64, 64, 32, 4, form_="groups")
    assert "%first = arith.remsi %shift, %nprog" in text
    text = text.replace("%first = arith.remsi %shift, %nprog", "%first = arith.addi %shift, %c0")
    m = _small(tmp, "bf16", "groups", text, "_walk")
    rng = np.random.default_rng(8)
    a, b, offs, c = problem([64, 64, 64], 64, 32, "bf16", rng)
    run(m, gen.kernel_name("bf16"), a, b, offs, c, 2, form="groups")  # 3 tiles, 2 programs
    with pytest.raises(AssertionError):
        check(a, b, offs, c)


@pytest.mark.parametrize("form", SMALL_FORMS)
@pytest.mark.parametrize("seed", [0, 1])
def test_after_ws_specialize(tmp, seed, form):
    path = _file(tmp, gen.grouped_mm("f16", 64, 64, 32, 4, form_=small_form(form)), f"f16_64x64x32_{form}")
    m = compile_kernel(path, "ws-specialize{depth=2 mma-depth=1}", shared=True)
    rng = np.random.default_rng(10 + seed)
    a, b, offs, c = problem([0, 100, 37, 0, 5, 128], 72, 40, "f16", rng)
    run(m, gen.kernel_name("f16"), a, b, offs, c, 3, seed=seed, form=small_form(form))
    check(a, b, offs, c)


PIPELINES = ["ws-hopper", runtime.PIPELINE, "ws-hopper{cooperative=2}", "ws-hopper{depth=2 mma-depth=1}"]


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_bundled_after_ws_hopper(dtype, pipeline):
    """The bundled 128x256x64 kernels after ws-hopper's variants, at small ragged shapes."""
    name = gen.kernel_name(dtype)
    m = compile_kernel(KERNELS / f"{name}.mlir", pipeline, shared=True)
    rng = np.random.default_rng(20)
    a, b, offs, c = problem([0, 130, 5, 0, 256], 264, 136, dtype, rng, extra_rows=3)
    run(m, name, a, b, offs, c, 3, seed=1)
    check(a, b, offs, c)


SPLIT = runtime.PIPELINE[:-1] + " team-stores=split}"  # bench/grouped_gemm.py's second pipeline


@pytest.mark.parametrize("pipeline", [runtime.PIPELINE, SPLIT])
@pytest.mark.parametrize("form", FORMS)
def test_forms_after_ws_hopper(tmp, form, pipeline):
    """Every form at the bundled blocks (bf16) after the pipelines bench/grouped_gemm.py times:
    groups cut by a tile's end, smaller than a tile, empty; N cut by the tile; rows past the last
    group; 3 programs (each walks several groups) and 40 (more than the tiles)."""
    path = _file(tmp, gen.grouped_mm("bf16", form_=form), f"bf16_bundled_{form}")
    m = compile_kernel(path, pipeline, shared=True)
    for grid, seed in ((3, 1), (40, 2)):
        rng = np.random.default_rng(21 + grid)
        a, b, offs, c = problem([0, 130, 5, 0, 256], 264, 136, "bf16", rng, extra_rows=3)
        run(m, "grouped_gemm", a, b, offs, c, grid, seed=seed, form=form)
        check(a, b, offs, c)


@pytest.mark.parametrize("form", FORMS)
def test_forms_ptxas(tmp, form):
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    ptx = compile_ptx(str(_file(tmp, gen.grouped_mm("bf16", form_=form), f"bf16_bundled_{form}")), runtime.PIPELINE)
    if gen.form(form).store == "tma":
        assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx  # C's TMA store
    rc, report = run_ptxas(ptx, ptxas)
    assert rc == 0, report
    assert "0 bytes spill stores" in report, report


@pytest.mark.parametrize("pipeline", PIPELINES[:2])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_ptxas(dtype, pipeline):
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    ptx = compile_ptx(str(KERNELS / f"{gen.kernel_name(dtype)}.mlir"), pipeline)
    assert "wgmma.mma_async" in ptx and "setmaxnreg" in ptx
    assert "ld.global.b32" in ptx  # the offsets, read on the device
    rc, report = run_ptxas(ptx, ptxas)
    assert rc == 0, report
    assert "0 bytes spill stores" in report, report


@pytest.mark.parametrize("form", [None, "scan"])
def test_launch_plan_interpreted(tmp, form):
    """runtime.launches' grid and argument order (the default form's and the masked one's),
    run in the interpreter on numpy arrays."""
    m = _small(tmp, "bf16", form or gen.DEFAULT)
    rng = np.random.default_rng(30)
    a, b, offs, c = problem([17, 0, 80], 64, 32, "bf16", rng)
    plan = runtime.launches(a, b, offs, c, 5, form)
    assert [grid for grid, _ in plan] == [5]
    assert len(plan[0][1]) == (9 if gen.form(form).store == "tma" else 8)
    for grid, args in plan:
        wsdialects.interpret(m, gen.kernel_name("bf16"), grid, args)
    check(a, b, offs, c)
    assert runtime.launches(a[:0], b, offs, c[:0], 5) == []


def test_default_form_and_bundled():
    """The bundled kernels and grouped_gemm() use gen.DEFAULT: a walk over the groups, TMA stores."""
    assert gen.form(None) == gen.FORMS[gen.DEFAULT] == gen.Form("groups", 0, "tma")
    text = (KERNELS / "grouped_gemm.mlir").read_text()
    assert "%c_desc: !tile.desc<tensor<128x256xbf16>>" in text and "scf.for %local = %first to %tg" in text


@pytest.mark.parametrize("kwargs,msg", [
    (dict(dtype="f32"), "f16 or bf16"),
    (dict(block_m=96), "powers of two"),
    (dict(block_m=64, num_warps=8), "multiple of 16 \\* num_warps"),
    (dict(form_="fastest"), "unknown grouped GEMM form 'fastest'; forms: scan, groups"),
])
def test_generator_rejects(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        gen.grouped_mm(**kwargs)


@pytest.mark.parametrize("kwargs,msg", [
    (dict(walk="binary"), "walk must be scan or groups"),
    (dict(store="smem"), "store must be masked or tma"),
    (dict(band=-1), "band must be 0"),
])
def test_form_rejects(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        gen.Form(**kwargs)


def test_bench_dry_run(tmp_path, capsys):
    """bench/grouped_gemm.py --dry-run imports, compiles our kernel per (form, pipeline) (no GPU),
    draws the group sizes the issue asks for and writes its table; a masked form is not timed twice
    under pipelines that differ only in how the team stores through TMA; an unknown form is refused."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("grouped_gemm_bench", ROOT / "bench" / "grouped_gemm.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for G in (4, 32):
        sizes = bench.group_sizes(G, 0)
        assert len(sizes) == G and all(m % 512 == 0 and 512 <= m <= 4096 for m in sizes)
        assert sizes == bench.group_sizes(G, 0)
    pipes = [runtime.PIPELINE, SPLIT]
    assert bench.variants(["scan", "groups+tma"], pipes) == [("scan", pipes[0]), ("groups+tma", pipes[0]),
                                                              ("groups+tma", pipes[1])]
    assert bench.main(["--dry-run", "--groups", "4", "--out", str(tmp_path), "--date", "D", "--forms", "scan,groups+tma",
                       "--pipelines", runtime.PIPELINE, "--list", "0"]) == 0
    out = capsys.readouterr().out
    assert "would time G=4" in out and "n/a" not in out and "groups+tma @ " in out
    table = (tmp_path / "D-grouped-gemm-dry-run.md").read_text()
    assert "| 4 | 512 x [" in table and "ws 2 = groups+tma (`groups/m/tma`)" in table
    with pytest.raises(SystemExit):
        bench.main(["--dry-run", "--forms", "fastest"])
    assert "unknown grouped GEMM form 'fastest'" in capsys.readouterr().err


class _Desc:
    """What a host TensorDescriptor carries (base, shape, strides, block shape)."""

    def __init__(self, base, block):
        self.base, self.block_shape = base, block
        self.shape, self.strides = base.shape, tuple(s // base.itemsize for s in base.strides)


TRITON = ROOT / "test" / "Inputs" / "triton"


@pytest.mark.parametrize("pipeline", ["", "ws-hopper"])
def test_triton_grouped_mm(pipeline):
    """examples/triton/grouped_gemm.py's TTIR (Triton's [1, BN, BK] host descriptor over B [G, N, K])
    interpreted as imported and after ws-hopper: 3 programs, ragged groups, c flat (a pointer)."""
    from wsdialects.triton.launch import expand

    path = TRITON / "grouped_mm_f16_64x64x32_sms3.ttir"
    m = compile_kernel(path, pipeline, shared=True) if pipeline else parse_kernel(path, shared=True)
    rng = np.random.default_rng(40)
    a, b, offs, c = problem([0, 100, 37, 0, 64, 5], 72, 40, "f16", rng, extra_rows=7)
    S = int(offs[-1])
    sig = {"a_desc": "tensordesc<fp16[64,32]>", "b_desc": "tensordesc<fp16[1,64,32]>", "c_ptr": "*fp16",
           "offs_ptr": "*i32", "G": "i32", "M": "i32", "N": "i32", "K": "i32"}
    args = expand(dict(a_desc=_Desc(a, [64, 32]), b_desc=_Desc(b, [1, 64, 32]), c_ptr=c, offs_ptr=offs,
                       G=len(offs), M=S, N=72, K=40), sig, "grouped_mm_kernel")
    wsdialects.interpret(m, "grouped_mm_kernel", 3, args)
    check(a[:S], b, offs, c[:S])
    assert np.isnan(c[S:].astype(np.float32)).all()


def test_triton_unit_block_unfolded():
    """A [1, 64, 32] tile loaded and stored unfolded (expand_dims / reshape beside the 2-D access)."""
    m = parse_kernel(ROOT / "test" / "triton" / "Inputs" / "unit_block_desc.ttir", shared=True)
    rng = np.random.default_rng(41)
    x = rng.standard_normal((3, 70, 32)).astype(np.float16)
    y = np.full_like(x, np.nan)
    args = [x, *x.shape, *(s // 2 for s in x.strides), y, *y.shape, *(s // 2 for s in y.strides)]
    wsdialects.interpret(m, "unit_block", 3, args)
    assert np.array_equal(y[:, :64], x[:, :64] + x[:, :64])
    assert np.isnan(y[:, 64:].astype(np.float32)).all()


# ---- the descriptor-array kernel (separate tensors per group, !tile.descs / tile.desc_index)
# (M_g, N_g, K_g): an empty group, groups smaller than a tile, N and K cut by the tile, K = 0
LIST_SIZES = [(0, 72, 40), (100, 72, 40), (37, 136, 16), (5, 8, 200), (64, 64, 0), (130, 16, 32)]


def list_problem(sizes, dtype, rng):
    dt = DTYPES[dtype]
    A = [rng.standard_normal((m, k)).astype(dt) for m, n, k in sizes]
    B = [(rng.standard_normal((n, k)) / np.sqrt(max(k, 1))).astype(dt) for m, n, k in sizes]
    C = [np.full((m, n), np.nan, dt) for m, n, k in sizes]
    return A, B, C, np.array(sizes, np.int32).reshape(-1, 3)


def list_check(A, B, C):
    for g, (a, b, c) in enumerate(zip(A, B, C)):
        want = a.astype(np.float64) @ b.astype(np.float64).T
        got = c.astype(np.float64)
        assert not np.isnan(got).any(), f"group {g}: not all of C_g written"
        assert not got.size or np.abs(got - want).max() <= 2e-2 * max(np.abs(want).max(), 1.0), f"group {g}"


def run_list(m, name, A, B, C, S, grid, seed=None):
    wsdialects.interpret(m, name, grid, [A, B, C, S, len(A)], seed=seed)


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("grid", [3, 40])
def test_descs_as_written(tmp, dtype, grid):
    m = parse_kernel(_file(tmp, gen.grouped_list(dtype, 64, 64, 32, 4), f"list_{dtype}_64x64x32"), shared=True)
    A, B, C, S = list_problem(LIST_SIZES, dtype, np.random.default_rng(50 + grid))
    run_list(m, gen.list_kernel_name(dtype), A, B, C, S, grid)
    list_check(A, B, C)


@pytest.mark.parametrize("seed", [0, 1])
def test_descs_after_ws_specialize(tmp, seed):
    m = compile_kernel(_file(tmp, gen.grouped_list("f16", 64, 64, 32, 4), "list_f16_64x64x32"),
                       "ws-specialize{depth=2 mma-depth=1}", shared=True)
    A, B, C, S = list_problem(LIST_SIZES, "f16", np.random.default_rng(60 + seed))
    run_list(m, gen.list_kernel_name("f16"), A, B, C, S, 3, seed=seed)
    list_check(A, B, C)


@pytest.mark.parametrize("pipeline", PIPELINES[:3])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_descs_bundled_after_ws_hopper(dtype, pipeline):
    name = gen.list_kernel_name(dtype)
    m = compile_kernel(KERNELS / f"{name}.mlir", pipeline, shared=True)
    sizes = [(0, 256, 64), (130, 264, 136), (5, 16, 64), (128, 256, 0)]
    A, B, C, S = list_problem(sizes, dtype, np.random.default_rng(70))
    run_list(m, name, A, B, C, S, 3, seed=2)
    list_check(A, B, C)


def test_descs_wrong_group_is_caught(tmp):
    """The check can fail: every tile reading group 0's descriptors gives wrong results."""
    text = gen.grouped_list("f16", 64, 64, 32, 4).replace("%a_descs[%f#1]", "%a_descs[%c0]")
    m = parse_kernel(_file(tmp, text, "list_wrong"), shared=True)
    A, B, C, S = list_problem([(64, 64, 32), (64, 64, 32)], "f16", np.random.default_rng(80))
    run_list(m, gen.list_kernel_name("f16"), A, B, C, S, 2)
    with pytest.raises(AssertionError):
        list_check(A, B, C)


@pytest.mark.parametrize("pipeline", PIPELINES[:2])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_descs_ptxas(dtype, pipeline):
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    ptx = compile_ptx(str(KERNELS / f"{gen.list_kernel_name(dtype)}.mlir"), pipeline)
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx  # C_g's TMA store
    rc, report = run_ptxas(ptx, ptxas)
    assert rc == 0, report
    assert "0 bytes spill stores" in report, report


def test_descs_launch_plan_interpreted(tmp):
    m = parse_kernel(_file(tmp, gen.grouped_list("bf16", 64, 64, 32, 4), "list_bf16_64x64x32"), shared=True)
    A, B, C, S = list_problem([(17, 64, 32), (0, 64, 32), (80, 128, 64)], "bf16", np.random.default_rng(90))
    plan = runtime.list_launches(A, B, C, S, 5)
    assert [grid for grid, _ in plan] == [5]
    for grid, args in plan:
        wsdialects.interpret(m, gen.list_kernel_name("bf16"), grid, args)
    list_check(A, B, C)


def test_desc_index_out_of_range_is_located(tmp):
    m = parse_kernel(_file(tmp, gen.grouped_list("f16", 64, 64, 32, 4), "list_f16_64x64x32"), shared=True)
    A, B, C, S = list_problem([(64, 64, 32), (64, 64, 32)], "f16", np.random.default_rng(91))
    A, B, C = A[:1], B[:1], C[:1]  # two groups' sizes, one group's descriptors
    with pytest.raises(wsdialects.InterpretError, match=r"grouped_list_f16_64x64x32.mlir:\d+:\d+: tile.desc_index: "
                                                          r"index 1 outside the array of 1 descriptors"):
        wsdialects.interpret(m, gen.list_kernel_name("f16"), 1, [A, B, C, S, 2])


def test_descs_launch_host_path(monkeypatch):
    """The runtime's launch of a !tile.descs argument on the test doubles (no GPU, torch or
    cuda-python; test/python/launch_doubles.py): one descriptor encoded per non-empty tensor of
    each list, each list one buffer; a repeated launch encodes nothing; a bad tensor of a list is
    named with its index."""
    import launch_doubles
    import wsdialects.runtime.compiler as compiler
    from wsdialects.runtime.launch import LaunchError

    info = {}
    torch, _drv, counts, launches = launch_doubles.install(monkeypatch, lambda: info["k"])
    monkeypatch.setattr(compiler, "_ptx_cached", lambda llvm_ir: "")
    name = gen.list_kernel_name("bf16")
    k = wsdialects.compile(str(KERNELS / f"{name}.mlir"), runtime.PIPELINE)
    info["k"] = k.kernels[name]
    assert [p.kind for p in info["k"].params] == ["descs", "descs", "descs", "ptr", "scalar"]
    assert info["k"].params[2].stored and not info["k"].params[0].stored
    bf = torch.bfloat16
    sizes = [(0, 256, 64), (300, 256, 64), (64, 128, 128)]
    A = [torch.empty((m, kk), bf) for m, n, kk in sizes]
    B = [torch.empty((n, kk), bf) for m, n, kk in sizes]
    C = [torch.empty((m, n), bf) for m, n, kk in sizes]
    S = torch.empty((3, 3), torch.int32)
    launcher = k.kernel(name)
    launcher[(132,)](A, B, C, S, 3)
    assert counts["cuTensorMapEncodeTiled"] == 2 + 3 + 2  # the empty A_0 and C_0 get placeholders
    p = launches[-1].params
    assert len(set(p[:3])) == 3 and all(p[:3]) and p[4] == 3
    counts.clear()
    launcher[(132,)](A, B, C, S, 3)
    assert dict(counts) == {"cuLaunchKernel": 1}
    assert launches[-1].params == p
    launcher[(132,)](A, B, C, torch.empty((3, 3), torch.int32), 3)  # a new sizes tensor: checked again,
    assert counts["cuTensorMapEncodeTiled"] == 0                      # the descriptors kept
    launcher[(132,)](A, [B[0], torch.empty((256, 64), bf), B[2]], C, S, 3)
    assert counts["cuTensorMapEncodeTiled"] == 3  # a new B list: its three descriptors encoded again
    bad = [A[0], torch.empty((10, 64), torch.float16), A[2]]
    with pytest.raises(LaunchError, match=r"argument 0 \(a_descs\[1\]\): expected dtype torch.bfloat16"):
        launcher[(132,)](bad, B, C, S, 3)
    odd = [A[0], A[1], torch.Tensor((64, 128), bf, (132, 1))]  # rows 264 bytes apart
    with pytest.raises(LaunchError, match=r"a_descs\[2\]\): .*16"):
        launcher[(132,)](odd, B, C, S, 3)


def test_tma_form_launch_host_path(monkeypatch):
    """The default form's launch on the test doubles (no GPU; test/python/launch_doubles.py): C is
    a pointer and a stored descriptor argument over the same tensor, the launch encodes three
    descriptors (A, B, C) and passes C's address as the pointer; a repeated launch encodes none."""
    import launch_doubles
    import wsdialects.runtime.compiler as compiler

    info = {}
    torch, _drv, counts, launches = launch_doubles.install(monkeypatch, lambda: info["k"])
    monkeypatch.setattr(compiler, "_ptx_cached", lambda llvm_ir: "")
    name = gen.kernel_name("bf16")
    k = wsdialects.compile(str(KERNELS / f"{name}.mlir"), runtime.PIPELINE)
    info["k"] = k.kernels[name]
    assert [p.kind for p in info["k"].params] == ["desc", "desc", "ptr", "desc", "ptr", "scalar", "scalar", "scalar",
                                                   "scalar"]
    assert info["k"].params[3].stored and not info["k"].params[0].stored
    bf = torch.bfloat16
    S, G, N, K = 1000, 4, 512, 256
    a, b, c = torch.empty((S, K), bf), torch.empty((G, N, K), bf), torch.empty((S, N), bf)
    offs = torch.empty((G,), torch.int32)
    (grid, args), = runtime.launches(a, b, offs, c, 132)
    assert args[2] is c and args[3] is c
    launcher = k.kernel(name)
    launcher[(grid,)](*args)
    assert counts["cuTensorMapEncodeTiled"] == 3
    p = launches[-1].params
    assert p[2] == c.data_ptr() and p[5:] == [G, S, N, K]
    counts.clear()
    launcher[(grid,)](*args)
    assert dict(counts) == {"cuLaunchKernel": 1}
