"""Accumulation into global memory on the GPU: TMA reduce-adds (`tile.desc_store add`,
`cp.reduce.async.bulk.tensor ... .add`) and `tile.atomic_add`'s vector form
(`red.global.add.v2.f32`).

- test/Inputs/kernels/splitk_reduce_gemm.mlir: a split-K GEMM whose slices reduce-add into one
  f32 C (ragged M, N and K; one and two consumer groups, persistent);
- test/Inputs/kernels/overlap_reduce_gemm.mlir: programs reduce-adding tiles that overlap their
  neighbours', the first starting left of C and the last running past its end (f32, f16, bf16);
- examples/triton/gemm_splitk_desc.py (`c_desc.atomic_add`) compiled by Triton and by us;
- test/transforms/Inputs/atomics-vector.mlir: tile.atomic_add paired where alignment is proven
  (and the forms where it is not), and Triton's pointer split-K compiled by us with aligned
  tensors (its pointers and row stride `tt.divisibility = 16`: the paired form).

Inputs are small integers and C starts at small non-zero integers, so every sum is exact and
the outputs are compared with torch exactly: a reduction that became a store, an element added
twice or a clipped element written fails. Skips without a Hopper GPU, torch or cuda-python
(the Triton cases also without triton).

    python -m pytest -q -n 0 test/gpu/test_reduce_store_gpu.py
"""

import importlib.util
from pathlib import Path

import pytest

from hopper_env import cdiv, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "test" / "Inputs" / "kernels"
ATOMICS_VECTOR = ROOT / "test" / "transforms" / "Inputs" / "atomics-vector.mlir"


def _ints(lo, hi, shape, dtype):
    return torch.randint(lo, hi, shape, device="cuda").to(dtype)


def _section(path: Path, name: str, tmp_path) -> Path:
    out = tmp_path / f"{name}.mlir"
    out.write_text(next(p for p in path.read_text().split("// -----") if f"@{name}(" in p))
    return out


def _example(stem: str):
    triton = pytest.importorskip("triton")  # noqa: F841
    path = ROOT / "examples" / "triton" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"examples_triton_{stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- split-K into C with TMA reduce-adds -------------------------------------------------------

@pytest.mark.parametrize("opts", [{}, {"cooperative": 2}, {"cooperative": 2, "team_stores": "split"},
                                  {"persistent": True}, {"persistent": True, "programs": 5},
                                  {"persistent": True, "programs": 3, "cooperative": 2, "pingpong": True}])
@pytest.mark.parametrize("shape,kt", [((200, 136, 336), 2), ((256, 384, 1024), 4), ((128, 128, 64), 1),
                                      ((130, 264, 2000), 3)])
def test_splitk_reduce_gemm(shape, kt, opts):
    """C0 + A @ B^T with K cut into slices of `kt` 64-wide tiles, each slice's program
    reduce-adding its partial 128x128 tile; the last row and column tiles are clipped."""
    k = wsdialects.compile(KERNELS / "splitk_reduce_gemm.mlir", **opts)
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group" in k.ptx
    M, N, K = shape
    a, b = _ints(-3, 4, (M, K), torch.float16), _ints(-3, 4, (N, K), torch.float16)
    c0 = _ints(-4, 5, (M, N), torch.float32)
    c = c0.clone()
    k[(cdiv(M, 128), cdiv(N, 128), cdiv(cdiv(K, 64), kt))](a, b, c, kt)
    torch.cuda.synchronize()
    assert torch.equal(c, c0 + a.float() @ b.float().T)


def test_splitk_reduce_gemm_accumulates_across_launches():
    """Two launches add twice: nothing in the kernel overwrites C."""
    k = wsdialects.compile(KERNELS / "splitk_reduce_gemm.mlir")
    M, N, K, kt = 256, 256, 512, 2
    a, b = _ints(-3, 4, (M, K), torch.float16), _ints(-3, 4, (N, K), torch.float16)
    c = torch.zeros(M, N, device="cuda")
    for _ in range(2):
        k[(2, 2, 4)](a, b, c, kt)
    torch.cuda.synchronize()
    assert torch.equal(c, 2 * (a.float() @ b.float().T))


# --- overlapping tiles, clipped on both sides --------------------------------------------------

P, M, N, K, A_ROWS = 5, 176, 216, 104, 180


def _overlap_reference(a, b, c0):
    c = c0.double()
    ap = torch.zeros(32 * P + 64, K, device="cuda", dtype=torch.float64)
    ap[:A_ROWS] = a.double()
    for p in range(P):
        t = ap[32 * p: 32 * p + 64] @ b.double().T
        r, col = 32 * p, 48 * p + 8
        r1, c_lo, c_hi = min(r + 64, M), max(col, 0), min(col + 64, N)
        c[r:r1, c_lo:c_hi] += t[: r1 - r, c_lo - col: c_hi - col]
    return c


@pytest.mark.parametrize("name,dtype", [("overlap_f32", torch.float32), ("overlap_f16", torch.float16),
                                        ("overlap_bf16", torch.bfloat16)])
def test_overlapping_clipped_tiles(name, dtype, tmp_path):
    k = wsdialects.compile(_section(KERNELS / "overlap_reduce_gemm.mlir", name, tmp_path))
    a, b = _ints(-1, 2, (A_ROWS, K), torch.float16), _ints(-1, 2, (64, K), torch.float16)
    c0 = _ints(-8, 9, (M, N), dtype)
    c = c0.clone()
    for _ in range(3):  # the same launch three times: the result must not depend on the race's order
        c.copy_(c0)
        k[P](a, b, c, K)
        torch.cuda.synchronize()
        want = _overlap_reference(a, b, c0)
        assert want.abs().max() <= 256  # integers every dtype holds exactly
        assert torch.equal(c.double(), want)


# --- Triton's desc.atomic_add ------------------------------------------------------------------

@pytest.mark.parametrize("blocks", [dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8),
                                    dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)])
@pytest.mark.parametrize("shape,split", [((256, 384, 4096), 4), ((300, 200, 1000), 3), ((128, 128, 64), 2)])
def test_triton_gemm_splitk_desc(blocks, shape, split):
    """The last case has one K tile for two slices: the second program adds zeros."""
    m = _example("gemm_splitk_desc")
    M, N, K = shape
    a, b = _ints(-3, 4, (M, K), torch.float16), _ints(-3, 4, (N, K), torch.float16)
    ref = a.float() @ b.float().T
    theirs = m.gemm_splitk_desc(a, b, SPLIT_K=split, **blocks)
    ours = m.gemm_splitk_desc(a, b, kernel=wsdialects.compile(m.gemm_splitk_desc_kernel), SPLIT_K=split, **blocks)
    torch.cuda.synchronize()
    assert torch.equal(theirs, ref), "Triton's own compile disagrees with torch: the test's reference is wrong"
    assert torch.equal(ours, ref)


# --- tile.atomic_add, two columns per red ------------------------------------------------------

VECTOR = {"aligned": True, "aligned_unmasked": True, "unaligned_base": False, "odd_stride": False,
          "odd_column": False}


@pytest.mark.parametrize("name,paired", VECTOR.items())
def test_vector_atomic_add(name, paired, tmp_path):
    """3 programs add A @ B^T into C at column 64p (+1 for odd_column), masked at M = 50 rows and
    N = 150 columns (all 64 rows and the whole tile without a mask); C's row stride 208 (207
    for odd_stride). The base is offset by one element for unaligned_base: its pairs really are
    misaligned there, which the scalar form does not mind."""
    k = wsdialects.compile(_section(ATOMICS_VECTOR, name, tmp_path))
    assert ("red.relaxed.gpu.global.add.v2.f32" in k.ptx) == paired
    Kd, Mm, Nn, programs = 96, 50, 150, 3
    stride = 207 if name == "odd_stride" else 208
    start = 1 if name == "odd_column" else 0
    a, b = _ints(-3, 4, (64, Kd), torch.float16), _ints(-3, 4, (64, Kd), torch.float16)
    buf = _ints(-4, 5, (64 * stride + 4,), torch.float32)
    c = buf[1:1 + 64 * stride] if name == "unaligned_base" else buf[: 64 * stride]
    c0 = c.clone()
    k[programs](a, b, c, Mm, Nn, stride, Kd)
    torch.cuda.synchronize()
    want = c0.view(64, stride).clone()
    acc = a.float() @ b.float().T
    masked = name != "aligned_unmasked"
    rows = Mm if masked else 64
    for p in range(programs):
        col = 64 * p + start
        width = min(64, Nn - col) if masked else 64
        want[:rows, col:col + width] += acc[:rows, :width]
    assert torch.equal(c, want.view(-1))


@pytest.mark.parametrize("N", [384, 200, 201])
def test_triton_pointer_splitk_pairs(N):
    """examples/triton/gemm_splitk.py (tl.atomic_add) compiled by us from aligned tensors: the
    pointers and (for N a multiple of 16) the row stride are specialized `tt.divisibility = 16`,
    so C's pairs are added with red.v2; N = 200 / 201 make the row stride unaligned to 16 or odd."""
    m = _example("gemm_splitk")
    M, K = 256, 1000
    a = _ints(-3, 4, (M, K), torch.float16)
    b = _ints(-3, 4, (K, N), torch.float16)
    ours = m.gemm_splitk(a, b, kernel=wsdialects.compile(m.gemm_splitk_kernel), SPLIT_K=3)
    torch.cuda.synchronize()
    assert torch.equal(ours, a.float() @ b.float())
