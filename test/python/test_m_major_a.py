"""M-contiguous A operands (wgmma's transpose-A bit): the weight-gradient GEMMs of
examples/kernels (dW = Xᵀ·dY, X [K, M] and dY [K, N] row-major, f16 and bf16) interpreted
from source on ragged shapes match numpy, and ws-lower-mma (tile.trans of a KxM slot read as
A) changes no value: the kernel interpreted right before and right after the pass, and after
all of ws-hopper (also cooperative, where each group's A is a column slice of the slot),
gives the same outputs under seeded interleavings. Their PTX sets the transpose-A bit and
assembles under ptxas where it is installed; fp8 with a transposed A is a located error."""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from cases import assert_same, copy_args
from kernel_cache import compile_kernel, parse_kernel

import wsdialects

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
LOWER = ",ws-lower-aref,ws-lower-warp-groups"
KINDS = [("gemm_weight_grad", "weight_grad", np.float16), ("gemm_weight_grad_bf16", "weight_grad_bf16", ml_dtypes.bfloat16)]


def cdiv(a, b):
    return -(-a // b)


def args_for(rng, dt, M, N, K):
    x = rng.standard_normal((K, M)).astype(dt)
    dy = rng.standard_normal((K, N)).astype(dt)
    return (cdiv(M, 128) * cdiv(N, 256),), [x, dy, np.zeros((M, N), dt), M, N, K, N]


def run(module, kernel, grid, args, seed=None):
    args = copy_args(args)
    wsdialects.interpret(module, kernel, grid, args, seed=seed)
    return [args[2]]


@pytest.mark.parametrize("file,kernel,dt", KINDS, ids=[k[0] for k in KINDS])
def test_weight_grad_matches_numpy(file, kernel, dt, rng):
    M, N, K = 200, 300, 100  # ragged in all three: TMA zero-fills, the store masks
    grid, args = args_for(rng, dt, M, N, K)
    (out,) = run(parse_kernel(KERNELS / f"{file}.mlir", shared=True), kernel, grid, args)
    x, dy = (a.astype(np.float64) for a in args[:2])
    want = (x.T @ dy).astype(dt).astype(np.float64)
    got = out.astype(np.float64)
    # f32 accumulation, one rounding to f16 / bf16 at the end (a wrong transpose is off by O(1))
    tol = 2 ** -7 if dt is ml_dtypes.bfloat16 else 2 ** -10
    assert np.all(np.abs(got - want) <= tol * (np.abs(want) + 1) * 2)


@pytest.mark.parametrize("spec", ["ws-specialize{depth=2 mma-depth=1}", "ws-partition,ws-distribute{depth=2}",
                                  "ws-specialize{cooperative=2 mma-depth=1}"])
@pytest.mark.parametrize("file,kernel,dt", KINDS, ids=[k[0] for k in KINDS])
def test_lower_mma_keeps_m_major_a(file, kernel, dt, spec, rng):
    path = KERNELS / f"{file}.mlir"
    before = compile_kernel(path, spec + LOWER, shared=True)
    after = compile_kernel(path, spec + LOWER + ",ws-lower-mma", shared=True)
    mmas = [o for o in after.walk() if o.name == "nvgpu.wgmma.mma_async"]
    assert mmas and all(o.operands[0].owner.name == "tile.trans" for o in mmas)
    assert not any(o.name in ("tile.dot", "mma.async_dot") for o in after.walk())
    grid, args = args_for(rng, dt, 150, 260, 130)
    want = run(before, kernel, grid, args)
    for seed in (None, 1, 2):
        assert_same(want, run(after, kernel, grid, args, seed=seed))


@pytest.mark.parametrize("pipe", ["ws-hopper", "ws-hopper{cooperative=2}"])
def test_ws_hopper_weight_grad(pipe, rng):
    path = KERNELS / "gemm_weight_grad.mlir"
    grid, args = args_for(rng, np.float16, 130, 100, 70)
    want = run(parse_kernel(path, shared=True), "weight_grad", grid, args)
    assert_same(want, run(compile_kernel(path, pipe, shared=True), "weight_grad", grid, args, seed=3))


@pytest.mark.parametrize("pipe", ["ws-hopper", "ws-hopper{cooperative=2}"])
@pytest.mark.parametrize("file", ["gemm_weight_grad", "gemm_weight_grad_bf16"])
def test_weight_grad_ptx_sets_transpose_a(file, pipe):
    import re
    import shutil

    from kernel_cache import compile_ptx, run_ptxas

    ptx = compile_ptx(KERNELS / f"{file}.mlir", pipe)
    # imm-scale-a, imm-scale-b, imm-trans-a (A is M-contiguous), imm-trans-b (dY is N-contiguous)
    mmas = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.(\w+)\.\w+ \{[^}]*\}, %rd\d+, %rd\d+, p, "
                      r"(\d), (\d), (\d), (\d);", ptx)
    assert mmas and all(m[2:] == ("1", "1", "1", "1") for m in mmas)
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas is not installed")
    rc, out = run_ptxas(ptx, ptxas)
    assert rc == 0, out


def test_fp8_transposed_a_is_a_located_error(tmp_path):
    main, epilogue = (KERNELS / "gemm_weight_grad.mlir").read_text().split("%c = arith.truncf")
    src = main.replace("xf16", "xf8E4M3FN") + "%c = arith.truncf" + epilogue  # X and dY in fp8
    p = tmp_path / "fp8_wgrad.mlir"
    p.write_text(src)
    with pytest.raises(wsdialects.WsError, match=r"fp8_wgrad\.mlir:\d+:\d+: error: ws-lower-mma: .*"
                                                   r"M-contiguous\), which wgmma reads for f16/bf16 only"):
        compile_kernel(p, "ws-hopper")
