"""ws-exp2-split on the GPU: the polynomial columns of an exp2 tile against the SFU's ex2 of
the same accumulator (test/Inputs/kernels/exp2_gemm.mlir compiled with and without the
split: same wgmma, so the same x), only in the columns the interpreter's model marks, within
the polynomial's bound; and bf16 attention with a share of P by polynomial against SDPA."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from hopper_env import cdiv, torch_on_hopper

torch = torch_on_hopper()
import torch.nn.functional as F  # noqa: E402

import wsdialects  # noqa: E402
from wsdialects.transforms.exp2_split import BLOCK, REL_ERROR, spread  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "test" / "Inputs" / "kernels" / "exp2_gemm.mlir"
SFU_REL = 2.0 ** -21  # ex2.approx.ftz.f32's relative error is about 2^-22.5 (PTX ISA): a margin
BASE = "ws-hopper{auto=false}"


@pytest.mark.parametrize("degree", [3, 4, 5])
@pytest.mark.parametrize("scale", [0.05, 8.0], ids=["normal", "clamps"])
def test_polynomial_columns_against_the_sfu(degree, scale):
    M, N, K = 300, 264, 200
    torch.manual_seed(degree)
    a, b = (torch.randn(n, K, device="cuda", dtype=torch.float16) for n in (M, N))
    sfu = wsdialects.compile(KERNEL, pipeline=BASE)
    split = wsdialects.compile(KERNEL, pipeline=f"{BASE},ws-exp2-split{{fma-fraction=0.5 degree={degree}}}")
    outs = []
    for k_ in (sfu, split):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
        k_[cdiv(M, 128), cdiv(N, 128)](a, b, c, K, scale)
        torch.cuda.synchronize()
        outs.append(c.double().cpu().numpy())
    want, got = outs
    assert not np.isnan(want).any() and not np.isnan(got).any()
    marked = np.array([(c % 128) // BLOCK in spread(128 // BLOCK, 8) for c in range(N)])
    assert np.array_equal(got[:, ~marked], want[:, ~marked])  # the SFU's columns are untouched
    w, g = want[:, marked], got[:, marked]
    assert np.array_equal(np.isposinf(w), np.isposinf(g))
    fin = np.isfinite(w)
    assert np.all(np.abs(g[fin] - w[fin]) <= (REL_ERROR[degree] + SFU_REL) * w[fin] + 2.0 ** -126)
    assert not np.array_equal(g, w)


@pytest.mark.parametrize("fraction", [0.25, 1.0])
@pytest.mark.parametrize("pipeline", ["ws-hopper{cooperative=2 pingpong=true}",
                                      "ws-hopper{cooperative=2 pingpong=true persistent=true programs=5}"])
def test_attention_with_the_split(pipeline, fraction):
    k_ = wsdialects.compile(ROOT / "examples" / "kernels" / "flash_attention_bf16.mlir",
                            pipeline=f"{pipeline},ws-exp2-split{{fma-fraction={fraction}}}")
    assert "ws.exp2_fma" in k_.ir
    for B, H, L in [(1, 2, 1), (2, 3, 300), (1, 2, 4096)]:
        torch.manual_seed(L)
        q, k, v = (torch.randn(B, H, L, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.full((B * H, L, 128), float("nan"), device="cuda", dtype=torch.bfloat16)
        k_[cdiv(L, 128), B * H](q.view(B * H, L, 128), k.view(B * H, L, 128), v.view(B * H, L, 128), o, L,
                                1 / math.sqrt(128))
        torch.cuda.synchronize()
        assert not torch.isnan(o).any()
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float())
        assert ((o.view(B, H, L, 128).float() - ref).norm() / ref.norm()).item() < 1e-2
