"""tile.atomic_add on the GPU (red / atom between fence.acq_rel.gpu, one owner thread per element):
Triton's split-K GEMM and split-N row sum (examples/triton/gemm_splitk.py) compiled by Triton and
by us (`wsdialects.compile(fn)`, imported TTIR through ws-hopper), launched the way a Triton user
launches them, both against torch; and the hand-written forms of
test/transforms/Inputs/atomics.mlir (old values read back, i32 with a mask, f16, a row slice, a
scalar counter) against torch. Outputs start non-zero, so an add that became a store, or an
element added twice, fails. Skips without a Hopper GPU, torch, cuda-python or triton."""

import importlib.util
from pathlib import Path

import pytest

from hopper_env import rel_err, torch_on_hopper

torch = torch_on_hopper()
triton = pytest.importorskip("triton")

import wsdialects  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ATOMICS = ROOT / "test" / "transforms" / "Inputs" / "atomics.mlir"


def _example():
    path = ROOT / "examples" / "triton" / "gemm_splitk.py"
    spec = importlib.util.spec_from_file_location("examples_triton_gemm_splitk", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("blocks", [dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8),
                                    dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)])
@pytest.mark.parametrize("shape,split", [((256, 384, 4096), 4), ((300, 200, 1000), 3), ((128, 128, 64), 2)])
def test_gemm_splitk(blocks, shape, split):
    """The last case has one K tile for two slices: the second program adds zeros."""
    m = _example()
    M, N, K = shape
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    theirs = m.gemm_splitk(a, b, SPLIT_K=split, **blocks)
    ours = m.gemm_splitk(a, b, kernel=wsdialects.compile(m.gemm_splitk_kernel), SPLIT_K=split, **blocks)
    torch.cuda.synchronize()
    assert rel_err(theirs, ref) < 1e-3, "Triton's own compile disagrees with torch: the test's reference is wrong"
    assert rel_err(ours, ref) < 1e-3


@pytest.mark.parametrize("shape", [(1000, 3000), (256, 64)])
def test_row_sum_splitn(shape):
    m = _example()
    x = torch.randn(*shape, device="cuda", dtype=torch.float16)
    ref = x.float().sum(1)
    theirs = m.row_sum_splitn(x)
    ours = m.row_sum_splitn(x, kernel=wsdialects.compile(m.row_sum_splitn_kernel))
    torch.cuda.synchronize()
    assert rel_err(theirs, ref) < 1e-3
    assert rel_err(ours, ref) < 1e-3


def _closest_multiple(old, c0, acc, programs):
    """Per element, the distance of `old` to the nearest of c0 + j * acc (j < programs): a read old
    value is C as some number of programs left it (which, on the GPU, is a race)."""
    return torch.stack([(old - (c0 + j * acc)).abs() for j in range(programs)]).amin(0)


@pytest.mark.parametrize("kernel", ["old_values", "int_and_half", "row_sums", "row_sums_two_groups"])
@pytest.mark.parametrize("pipeline", ["ws-hopper", "ws-hopper{cooperative=2}"])
def test_hand_written_forms(kernel, pipeline, tmp_path):
    path = tmp_path / f"{kernel}.mlir"
    path.write_text(next(p for p in ATOMICS.read_text().split("// -----") if f"@{kernel}(" in p))
    k = wsdialects.compile(path, pipeline=pipeline)
    rows = 128 if kernel == "row_sums_two_groups" else 64
    K, programs = 96, 5
    # small integers: every product and sum is exact, so i32's truncation has one right answer
    a = torch.randint(-3, 4, (rows, K), device="cuda").to(torch.float16)
    b = torch.randint(-3, 4, (64, K), device="cuda").to(torch.float16)
    acc = a.float() @ b.float().T
    if kernel == "old_values":
        c0 = torch.randn(64, 64, device="cuda")
        c, o = c0.clone(), torch.full((64, 64), float("nan"), device="cuda")
        k[programs](a, b, c, o, K)
        torch.cuda.synchronize()
        assert rel_err(c, c0 + programs * acc) < 1e-5
        assert (_closest_multiple(o, c0, acc, programs) < 1e-3 * (1 + acc.abs())).all()
    elif kernel == "int_and_half":
        i0 = torch.randint(-50, 50, (64, 64), device="cuda", dtype=torch.int32)
        i, h = i0.clone(), torch.zeros(64, 64, device="cuda", dtype=torch.float16)
        k[programs](a, b, i, h, 40, K)
        torch.cuda.synchronize()
        cols = torch.arange(64, device="cuda") < 40
        assert torch.equal(i, i0 + programs * torch.where(cols, acc.trunc().to(torch.int32), 0))
        assert rel_err(h.float(), programs * acc.half().float()) < 1e-2
    else:
        r0 = torch.randn(rows, device="cuda")
        r, o = r0.clone(), torch.full((rows,), float("nan"), device="cuda")
        done = torch.zeros(1, device="cuda", dtype=torch.int32)
        k[programs](a, b, r, o, done, K)
        torch.cuda.synchronize()
        s = acc.sum(1)
        assert rel_err(r, r0 + programs * s) < 1e-5
        assert (_closest_multiple(o, r0, s, programs) < 1e-3 * (1 + s.abs())).all()
        assert done.item() == programs
