"""GPU correctness of the grouped GEMM (wsdialects/runtime/grouped.py, torch._grouped_mm's form:
a [sum M_g, K], b [G, N, K], int32 cumulative offsets on the device) against torch: each group's
rows within 1e-2 relative error of float32 matmuls (and of torch._grouped_mm where this torch has
it), f16 and bf16, the default ping-pong pipeline and plain ws-hopper; ragged groups (empty ones,
groups smaller than a tile, tiles cut by a group's end and by N); the output poisoned with NaN,
its rows past the last group checked untouched; every kernel form (how a program walks the
groups' tiles and stores them, grouped_gemm_kernels.FORMS), and the masked-store fallback where TMA
cannot take C (rows not a multiple of 16 bytes); the list form (separate tensors, each group its
own M, N, K: one descriptor per group, !tile.descs); bad inputs refused before a launch. Skips without torch or a Hopper GPU."""

from __future__ import annotations

import pytest

from hopper_env import rel_err, torch_on_hopper

torch = torch_on_hopper()

from wsdialects.runtime import grouped_gemm  # noqa: E402
from wsdialects.runtime import grouped_gemm_kernels as kernels  # noqa: E402
from wsdialects.runtime.grouped import PIPELINE  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
# (group sizes, N, K): empty groups first, last and between; groups smaller than a tile (128 rows);
# groups cutting tiles; N not a multiple of 256; K not a multiple of 64; many groups
SHAPES = [([0, 1, 127, 0, 129, 300], 512, 256), ([5], 200, 136), ([0, 0, 64], 256, 64),
          ([512, 0, 1024, 17, 333], 1024, 1024), ([97] * 32, 384, 512), ([0, 4096, 2048, 0], 4096, 4096)]


def problem(sizes, N, K, dtype, extra_rows=5):
    S = sum(sizes)
    a = torch.randn(S, K, device="cuda", dtype=dtype)
    b = (torch.randn(len(sizes), N, K, device="cuda") * K ** -0.5).to(dtype)
    offs = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    out = torch.full((S + extra_rows, N), float("nan"), device="cuda", dtype=dtype)
    return a, b, offs, out


def reference(a, b, sizes):
    outs, start = [], 0
    for g, m in enumerate(sizes):
        outs.append(a[start:start + m].float() @ b[g].float().T)
        start += m
    return torch.cat(outs)


@pytest.mark.parametrize("pipeline", [PIPELINE, "ws-hopper"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"G{len(s[0])}_N{s[1]}_K{s[2]}")
def test_grouped_mm_form(shape, dtype, pipeline):
    sizes, N, K = shape
    a, b, offs, out = problem(sizes, N, K, DTYPES[dtype])
    S = sum(sizes)
    c = grouped_gemm(a, b, offs, out=out[:S], pipeline=pipeline)
    torch.cuda.synchronize()
    assert c.data_ptr() == out.data_ptr()
    if S:
        assert rel_err(c, reference(a, b, sizes)) < 1e-2
    assert torch.isnan(out[S:]).all(), "rows past the last group were written"


@pytest.mark.parametrize("form", sorted(kernels.FORMS))
@pytest.mark.parametrize("shape", [SHAPES[0], SHAPES[3], SHAPES[4]], ids=lambda s: f"G{len(s[0])}_N{s[1]}_K{s[2]}")
def test_forms(shape, form):
    """Every form (bf16, the default pipeline) at ragged shapes: empty groups, groups smaller than
    a tile, tiles cut by a group's end, many groups; rows past the last group untouched."""
    sizes, N, K = shape
    a, b, offs, out = problem(sizes, N, K, torch.bfloat16)
    S = sum(sizes)
    c = grouped_gemm(a, b, offs, out=out[:S], form=form)
    torch.cuda.synchronize()
    assert rel_err(c, reference(a, b, sizes)) < 1e-2
    assert torch.isnan(out[S:]).all(), "rows past the last group were written"


def test_masked_fallback_where_tma_cannot_store():
    """N = 100 (200-byte rows of C: no TMA descriptor): the default form falls back to masked stores."""
    sizes, N, K = [0, 130, 5, 300], 100, 64
    a, b, offs, out = problem(sizes, N, K, torch.bfloat16)
    S = sum(sizes)
    c = grouped_gemm(a, b, offs, out=out[:S])
    torch.cuda.synchronize()
    assert rel_err(c, reference(a, b, sizes)) < 1e-2
    assert torch.isnan(out[S:]).all()


def test_against_torch_grouped_mm():
    if not hasattr(torch, "_grouped_mm"):
        pytest.skip("this torch has no _grouped_mm")
    sizes, N, K = [0, 128, 77, 640, 0, 256], 1024, 512
    a, b, offs, _ = problem(sizes, N, K, torch.bfloat16)
    want = torch._grouped_mm(a, b.transpose(-2, -1), offs)
    got = grouped_gemm(a, b, offs)
    torch.cuda.synchronize()
    assert rel_err(got, want) < 1e-2


def test_offsets_past_the_rows_write_nothing():
    """offs[-1] > a.shape[0]: the kernel clips the store at a's rows (no write past c)."""
    a, b, offs, out = problem([100, 100], 256, 128, torch.bfloat16, extra_rows=64)
    offs[1] = 260  # past a's 200 rows
    grouped_gemm(a, b, offs, out=out[:200])
    torch.cuda.synchronize()
    assert torch.isnan(out[200:]).all()
    assert rel_err(out[:200], reference(a, b, [100, 100])) < 1e-2


# (M_g, N_g, K_g) of the list form (one descriptor per group, !tile.descs): an empty group, groups
# smaller than a tile, N and K cut by the tile, K = 0, a group of several tiles
LIST_SIZES = [(3, 256, 192), (0, 64, 64), (200, 136, 72), (128, 512, 1024), (77, 8, 16), (64, 64, 0),
              (1000, 1000, 512)]


@pytest.mark.parametrize("pipeline", [PIPELINE, "ws-hopper"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_list_form(dtype, pipeline):
    """Separate tensors, each group its own M, N, K; outputs poisoned with NaN."""
    t = DTYPES[dtype]
    a_list = [torch.randn(m, k, device="cuda", dtype=t) for m, n, k in LIST_SIZES]
    b_list = [(torch.randn(n, k, device="cuda") * max(k, 1) ** -0.5).to(t) for m, n, k in LIST_SIZES]
    out = [torch.full((m, n), float("nan"), device="cuda", dtype=t) for m, n, k in LIST_SIZES]
    cs = grouped_gemm(a_list, b_list, out=out, pipeline=pipeline)
    torch.cuda.synchronize()
    assert [c.data_ptr() for c in cs] == [c.data_ptr() for c in out]
    for g, (x, w, c) in enumerate(zip(a_list, b_list, cs)):
        if c.numel():
            want = x.float() @ w.float().T
            err = rel_err(c, want) if want.norm() > 0 else c.abs().max().item()
            assert err < 1e-2, f"group {g} {tuple(x.shape)} x {tuple(w.shape)}: {err}"


def test_list_form_with_one_weight_tensor():
    """b as one [G, N, K] tensor (its groups' views), the a's of different M."""
    sizes, N, K = [3, 0, 200, 128], 256, 192
    a_list = [torch.randn(m, K, device="cuda", dtype=torch.bfloat16) for m in sizes]
    b = (torch.randn(len(sizes), N, K, device="cuda") * K ** -0.5).to(torch.bfloat16)
    cs = grouped_gemm(a_list, b)
    torch.cuda.synchronize()
    for g, (x, c) in enumerate(zip(a_list, cs)):
        if x.shape[0]:
            assert rel_err(c, x.float() @ b[g].float().T) < 1e-2


@pytest.mark.parametrize("bad,msg", [
    (lambda a, b, o: (a.float(), b.float(), o), "float16 or bfloat16"),
    (lambda a, b, o: (a[:, :100], b[:, :, :100], o), "multiple of 16 bytes"),
    (lambda a, b, o: (a, b, o.long()), "offs must be int32"),
    (lambda a, b, o: (a, b[:, :, :64], o), "K differs"),
    (lambda a, b, o: (a, b[0], o), r"b must be \[G, N, K\]"),
    (lambda a, b, o: ([a[:, :100]], [b[0, :, :100]], None), "multiples of 8"),
    (lambda a, b, o: ([a, a], [b[0]], None), "2 a's need 2 b's"),
])
def test_bad_inputs_refused(bad, msg):
    a, b, offs, _ = problem([10, 20], 128, 128, torch.bfloat16)
    with pytest.raises((ValueError, TypeError), match=msg):
        grouped_gemm(*bad(a, b, offs))


def test_triton_grouped_mm():
    """examples/triton/grouped_gemm.py's kernel through wsdialects.compile (the @triton.jit
    function, launched as Triton launches it) and through Triton itself, against torch."""
    triton = pytest.importorskip("triton")
    import importlib.util
    from pathlib import Path

    import wsdialects

    path = Path(__file__).resolve().parents[2] / "examples" / "triton" / "grouped_gemm.py"
    spec = importlib.util.spec_from_file_location("examples_triton_grouped_gemm", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sizes, N, K = [0, 300, 5, 1024, 0, 129], 512, 256
    a, b, offs, _ = problem(sizes, N, K, torch.bfloat16)
    want = reference(a, b, sizes)
    ours = mod.grouped_mm(a, b, offs, kernel=wsdialects.compile(mod.grouped_mm_kernel))
    torch.cuda.synchronize()
    assert rel_err(ours, want) < 1e-2
    try:  # Triton's own compile of the same source, where this Triton compiles it
        theirs = mod.grouped_mm(a, b, offs)
    except RuntimeError as e:  # Triton 3.6's TTGIR coalescing aborts on this kernel (its TTIR, ours, is fine)
        pytest.skip(f"Triton {triton.__version__} does not compile the kernel itself: {str(e).splitlines()[0]}")
    torch.cuda.synchronize()
    assert rel_err(theirs, want) < 1e-2
