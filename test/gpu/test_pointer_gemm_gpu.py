"""GPU: the pointer GEMM in Triton's classic form (test/Inputs/kernels/pointer_gemm.mlir: pointer
tiles, L2-grouped tile order, K masks), its loads turned into TMA loads by ws-tma-load inside
ws-hopper, against torch; ragged shapes, row strides TMA takes directly and ones for which the
launch builds the descriptor over an aligned copy (K or N not a multiple of 8), and a misaligned
base. Skips without torch or a Hopper GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopper_env import cdiv, rel_err, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402

KERNEL = Path(__file__).resolve().parents[2] / "test" / "Inputs" / "kernels" / "pointer_gemm.mlir"


@pytest.fixture(scope="module", params=[{}, {"persistent": True}], ids=["plain", "persistent"])
def gemm(request):
    return wsdialects.compile(KERNEL, pipeline="ws-hopper", **request.param)


def _launch(gemm, a, b):
    (M, K), N = a.shape, b.shape[1]
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    gemm[cdiv(M, 128) * cdiv(N, 128)](a, b, c, M, N, K, K, N, N)
    torch.cuda.synchronize()
    return c


@pytest.mark.parametrize("M,N,K", [(128, 128, 64), (1000, 776, 2056), (200, 300, 1000), (190, 262, 100),
                                   (3000, 2900, 523), (64, 40, 8)])
def test_pointer_gemm(gemm, M, N, K):
    torch.manual_seed(M + 3 * N + 7 * K)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = _launch(gemm, a, b)
    assert rel_err(c, a.float() @ b.float()) < 2e-3
    c2 = _launch(gemm, a, b)  # a launch seen before (or one that copied again) gives the same C
    assert torch.equal(c, c2)


def test_misaligned_base(gemm):
    M, N, K = 300, 264, 136
    buf = torch.randn(M * K + 1, device="cuda", dtype=torch.float16)
    a = buf[1:].view(M, K)  # 2 bytes past a 16-byte boundary: the descriptor covers a copy
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    assert a.data_ptr() % 16
    assert rel_err(_launch(gemm, a, b), a.float() @ b.float()) < 2e-3
