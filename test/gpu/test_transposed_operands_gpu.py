"""GPU correctness of the wgmma operand forms attention's backward needs, against float32
torch on ragged shapes, outputs NaN-filled first (an element never written fails):

- M-contiguous A (wgmma's transpose-A bit): the weight-gradient GEMMs of examples/kernels,
  dW = Xᵀ·dY with X [K, M] and dY [K, N] row-major (f16 and bf16), through ws-hopper, its
  cooperative team (each group's rows of M a column block of the slot) and persistent;
- register tiles staged through shared memory as wgmma operands (ws-stage-operands):
  test/Inputs/kernels/staged_dst.mlir, acc += trans(f16(Q_j Kᵀ)) · V_j over the query
  blocks j (the dS case of the backward: dSᵀ computed in registers, dS = trans(dSᵀ) read as A),
  and staged_b.mlir, acc += X_j · f16(Y_j Wᵀ) + X_j · f16(Y_j Wᵀ)ᵀ (register B, N- and K-major).

Skips without torch or a Hopper GPU. Row lengths are multiples of 8 elements (TMA's 16-byte
global strides); everything else is ragged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hopper_env import cdiv, rel_err, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "examples" / "kernels"
INPUTS = ROOT / "test" / "Inputs" / "kernels"
PIPES = ["ws-hopper", "ws-hopper{cooperative=2}", "ws-hopper{persistent=true}"]
DTYPES = {"gemm_weight_grad": torch.float16, "gemm_weight_grad_bf16": torch.bfloat16}


@pytest.mark.parametrize("pipe", PIPES)
@pytest.mark.parametrize("name", list(DTYPES))
def test_weight_grad(name, pipe):
    dt = DTYPES[name]
    k = wsdialects.compile(KERNELS / f"{name}.mlir", pipeline=pipe)
    g = torch.Generator(device="cuda").manual_seed(0)
    # (M, N, K): one tile, one K step; smaller than a tile with K = 1; ragged everywhere;
    # many tiles and K steps
    for M, N, K in [(128, 256, 64), (8, 16, 1), (200, 304, 100), (136, 264, 1000), (1032, 776, 4099)]:
        x = torch.randn(K, M, device="cuda", dtype=dt, generator=g)
        dy = torch.randn(K, N, device="cuda", dtype=dt, generator=g)
        dw = torch.full((M, N), float("nan"), device="cuda", dtype=dt)
        k[cdiv(M, 128) * cdiv(N, 256)](x, dy, dw, M, N, K, N)
        torch.cuda.synchronize()
        ref = x.float().T @ dy.float()
        err = rel_err(dw, ref)
        # f32 accumulation, one rounding of the result to f16 (2^-11) / bf16 (2^-8)
        assert err < (2e-3 if dt == torch.float16 else 8e-3), (M, N, K, err)


@pytest.mark.parametrize("pipe", ["ws-hopper", "ws-hopper{persistent=true}", "ws-hopper{depth=2 mma-depth=0}"])
@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_staged_register_a(dt, pipe, tmp_path):
    path = INPUTS / "staged_dst.mlir"
    if dt == "bf16":
        path = tmp_path / "staged_dst_bf16.mlir"
        path.write_text((INPUTS / "staged_dst.mlir").read_text().replace("xf16", "xbf16"))
    tdt = torch.float16 if dt == "f16" else torch.bfloat16
    k = wsdialects.compile(path, pipeline=pipe)
    g = torch.Generator(device="cuda").manual_seed(1)
    d = 64
    # (keys, queries): one block each; ragged both (a partial last block); many blocks
    for L_k, L_q in [(128, 128), (100, 70), (300, 1000), (1024, 128 * 17 + 5)]:
        q = torch.randn(L_q, d, device="cuda", dtype=tdt, generator=g) / 4
        kk = torch.randn(L_k, d, device="cuda", dtype=tdt, generator=g) / 4
        v = torch.randn(L_q, d, device="cuda", dtype=tdt, generator=g)
        out = torch.full((L_k, d), float("nan"), device="cuda", dtype=torch.float32)
        k[cdiv(L_k, 128)](q, kk, v, out, L_k, L_q)
        torch.cuda.synchronize()
        s = (q.float() @ kk.float().T).to(tdt).float()  # [queries, keys], rounded as the kernel does
        ref = s.T @ v.float()
        assert rel_err(out, ref) < (2e-3 if dt == "f16" else 1e-2), (L_k, L_q)


@pytest.mark.parametrize("pipe", ["ws-hopper", "ws-hopper{persistent=true}"])
def test_staged_register_b(pipe):
    k = wsdialects.compile(INPUTS / "staged_b.mlir", pipeline=pipe)
    g = torch.Generator(device="cuda").manual_seed(2)
    # (M, n): one block, one step; ragged rows; many blocks and steps
    for M, n in [(64, 1), (100, 3), (1000, 17)]:
        x = torch.randn(M, n * 64, device="cuda", dtype=torch.float16, generator=g)
        y = torch.randn(n * 64, 64, device="cuda", dtype=torch.float16, generator=g) / 4
        w = torch.randn(64, 64, device="cuda", dtype=torch.float16, generator=g) / 4
        out = torch.full((M, 64), float("nan"), device="cuda", dtype=torch.float32)
        k[cdiv(M, 64)](x, y, w, out, n)
        torch.cuda.synchronize()
        ref = torch.zeros(M, 64, device="cuda")
        for j in range(n):
            s = (y[64 * j:64 * j + 64].float() @ w.float().T).half().float()
            xj = x[:, 64 * j:64 * j + 64].float()
            ref += xj @ s + xj @ s.T
        assert rel_err(out, ref) < 2e-3, (M, n)
