"""GPU correctness of kernels with several tile loops (test/Inputs/kernels/loops/), compiled with
ws-hopper: causal attention in two K/V loops, a two-pass row softmax and a user-written
persistent GEMM (the K loop nested in a loop over tiles), against float32 torch references on
ragged shapes. Outputs are NaN-filled first. Skips without torch or a Hopper GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopper_env import cdiv, rel_err, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402

LOOPS = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "loops"
PIPES = ["ws-hopper", "ws-hopper{persistent=true programs=3}"]


@pytest.mark.parametrize("pipe", PIPES)
# rows of 16-byte multiples: TMA descriptors need them (the launcher refuses 300 x f16 = 600 bytes)
@pytest.mark.parametrize("M,N", [(100, 296), (64, 128), (130, 1000)])
def test_softmax_two_pass(pipe, M, N):
    k = wsdialects.compile(LOOPS / "softmax_two_pass.mlir", pipeline=pipe)
    g = torch.Generator(device="cuda").manual_seed(M + N)
    x = torch.randn(M, N, device="cuda", dtype=torch.float16, generator=g) * 3
    y = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k[(cdiv(M, 64),)](x, y, N)
    torch.cuda.synchronize()
    assert rel_err(y, torch.softmax(x.float(), dim=1)) < 1e-2


@pytest.mark.parametrize("pipe", PIPES)
@pytest.mark.parametrize("L,H", [(384, 2), (128, 3), (1024, 2)])
def test_causal_attention_two_loops(pipe, L, H):
    k = wsdialects.compile(LOOPS / "causal_attention_two_loops.mlir", pipeline=pipe)
    g = torch.Generator(device="cuda").manual_seed(L + H)
    q, kk, v = (torch.randn(H * L, 128, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    o = torch.full((H * L, 128), float("nan"), device="cuda", dtype=torch.float16)
    scale = 128 ** -0.5
    k[(cdiv(L, 128), H)](q, kk, v, o, L, scale)
    torch.cuda.synchronize()
    s = (q.float().view(H, L, 128) @ kk.float().view(H, L, 128).transpose(1, 2)) * scale
    s = s.masked_fill(torch.ones(L, L, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    ref = (torch.softmax(s, dim=-1) @ v.float().view(H, L, 128)).view(H * L, 128)
    assert rel_err(o, ref) < 1e-2


@pytest.mark.parametrize("programs", [1, 5, 132])
@pytest.mark.parametrize("M,N,K", [(150, 136, 104), (64, 64, 32), (512, 384, 1000)])
def test_persistent_gemm(programs, M, N, K):
    k = wsdialects.compile(LOOPS / "persistent_gemm.mlir", pipeline="ws-hopper")
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16, generator=g)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k[(programs,)](a, b, c, M, N, K)
    torch.cuda.synchronize()
    assert rel_err(c, a.float() @ b.float().T) < 1e-2
