"""GPU correctness of attention (examples/kernels) against float32
`torch.nn.functional.scaled_dot_product_attention`, on random inputs, outputs poisoned
with NaN (an unwritten element fails); skips without torch or a Hopper GPU.

flash_attention* kernels take [B*H, L, d] tensors (3-D TMA descriptors) and are right
at any L; the bundled attention.mlir and causal_attention.mlir take [B*H*L, 128]
(2-D descriptors) and need L to be a multiple of 128.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hopper_env import torch_on_hopper

torch = torch_on_hopper()

import torch.nn.functional as F  # noqa: E402

import wsdialects  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

SHAPES = [(1, 1, 1), (1, 2, 100), (2, 3, 384), (1, 2, 1000), (1, 2, 4096)]  # (batch, heads, L)
VARIANTS = [  # (kernel, head dim, dtype, causal, query rows per program)
    ("flash_attention", 128, "float16", False, 128),
    ("flash_attention_causal", 128, "float16", True, 128),
    ("flash_attention_bf16", 128, "bfloat16", False, 128),
    ("flash_attention_d64", 64, "float16", False, 128),
    ("flash_attention_causal_d64", 64, "float16", True, 128),
    ("flash_attention_d256", 256, "float16", False, 64),
]
PIPELINES = ["ws-hopper", "ws-hopper{cooperative=2}", "ws-hopper{cooperative=2 pingpong=true}",
             # persistent: 5 programs loop over the (query block, head) tiles
             "ws-hopper{cooperative=2 pingpong=true persistent=true programs=5}",
             # each group stores its own rows of O (no gather)
             "ws-hopper{cooperative=2 pingpong=true persistent=true programs=5 team-stores=split}"]
# ws-schedule's output for the head-dim-128 kernels, kept as IR (the GPU machine has no OR-Tools):
# ws-hopper honours its ws.* attributes. NAME.mlir: the solver's choice (a ping-pong team);
# NAME_split.mlir (pingpong=false): softmax and P.V on different warp groups, P and the row
# rescale through aref slots.
SCHEDULED = ROOT / "test" / "Inputs" / "kernels" / "scheduled"
SCHEDULED_VARIANTS = [v for v in VARIANTS if v[0] in ("flash_attention", "flash_attention_causal",
                                                       "flash_attention_bf16")]
# the solver's choice for the other head dims (no split organisation stored for them)
SCHEDULED_OTHER = [v for v in VARIANTS if v[0] in ("flash_attention_d64", "flash_attention_causal_d64",
                                                    "flash_attention_d256")]


def check(out, q, k, v, causal):
    assert not torch.isnan(out).any(), "NaN in the output (unwritten elements?)"
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    err = ((out.float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err
    return err


def check_shapes(k_, d, dt, causal, bm, seed=0):
    """Run a compiled [B*H, L, d] attention kernel at every SHAPES entry (grid (ceil(L / bm),
    B*H), output poisoned with NaN) and check it against float32 SDPA."""
    for B, H, L in SHAPES:
        torch.manual_seed(B * 1000 + H * 100 + L + seed)
        q, k, v = (torch.randn(B, H, L, d, device="cuda", dtype=dt) for _ in range(3))
        o = torch.full((B * H, L, d), float("nan"), device="cuda", dtype=dt)
        k_[(L + bm - 1) // bm, B * H](q.view(B * H, L, d), k.view(B * H, L, d), v.view(B * H, L, d), o, L,
                                        1 / math.sqrt(d))
        torch.cuda.synchronize()
        check(o.view(B, H, L, d), q, k, v, causal)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name,d,dtype,causal,bm", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_flash_attention(name, d, dtype, causal, bm, pipeline):
    k_ = wsdialects.compile(ROOT / "examples" / "kernels" / f"{name}.mlir", pipeline=pipeline)
    check_shapes(k_, d, getattr(torch, dtype), causal, bm)


@pytest.mark.parametrize("name,d,dtype,causal,bm,organisation",
                         [(*v, o) for v in SCHEDULED_VARIANTS for o in ("", "_split")]
                         + [(*v, "") for v in SCHEDULED_OTHER],
                         ids=[v[0] + o for v in SCHEDULED_VARIANTS for o in ("", "_split")]
                         + [v[0] for v in SCHEDULED_OTHER])
@pytest.mark.parametrize("pipeline", ["ws-hopper", "ws-hopper{persistent=true programs=5}"], ids=["", "persistent"])
def test_scheduled_flash_attention(name, d, dtype, causal, bm, organisation, pipeline):
    k_ = wsdialects.compile(SCHEDULED / f"{name}{organisation}.mlir", pipeline=pipeline)
    check_shapes(k_, d, getattr(torch, dtype), causal, bm, seed=1)


@pytest.mark.parametrize("pipeline", ["ws-hopper", "ws-hopper{cooperative=2}", "ws-hopper{depth=2 mma-depth=1}"])
@pytest.mark.parametrize("path,causal", [(ROOT / "examples" / "kernels" / "attention.mlir", False),
                                         (ROOT / "test" / "Inputs" / "kernels" / "causal_attention.mlir", True)],
                         ids=["attention", "causal_attention"])
def test_bundled_attention(path, causal, pipeline):
    k_ = wsdialects.compile(path, pipeline=pipeline)
    d = 128
    for B, H, L in [(2, 3, 384), (1, 2, 4096)]:
        torch.manual_seed(L)
        q, k, v = (torch.randn(B, H, L, d, device="cuda", dtype=torch.float16) for _ in range(3))
        o = torch.full((B * H * L, d), float("nan"), device="cuda", dtype=torch.float16)
        k_[L // 128, B * H](q.reshape(-1, d), k.reshape(-1, d), v.reshape(-1, d), o, L, 1 / math.sqrt(d))
        torch.cuda.synchronize()
        check(o.view(B, H, L, d), q, k, v, causal)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_key_tile_176_stages_o_in_q_slot(pipeline):
    """176-key tiles (FlashAttention-3's for non-causal d128): two slots of K and V leave no
    room for a separate staging buffer of O's TMA store, so ws-hopper stages O in Q's slot
    once Q is released (ws-stage-in-slot); right at every L, NaN-poisoned output."""
    k_ = wsdialects.compile(ROOT / "test" / "Inputs" / "kernels" / "flash_attention_bf16_bn176.mlir", pipeline=pipeline)
    assert "ws.store_staging" in str(k_.ir)
    check_shapes(k_, 128, torch.bfloat16, False, 128)


@pytest.mark.parametrize("stored", ["flash_attention_bf16_bn176", "flash_attention_bf16_bn176_occupancy"],
                         ids=["", "occupancy"])
@pytest.mark.parametrize("pipeline", ["ws-hopper", "ws-hopper{persistent=true programs=5}"], ids=["", "persistent"])
def test_scheduled_key_tile_176(pipeline, stored):
    """ws-schedule's choices for the 176-key kernel (stored: the default's, P·V one stage
    behind, and with the softmax priced at occupancy, one stage), lowered with O in Q's slot."""
    k_ = wsdialects.compile(SCHEDULED / f"{stored}.mlir", pipeline=pipeline)
    assert "ws.store_staging" in str(k_.ir)
    check_shapes(k_, 128, torch.bfloat16, False, 128)


@pytest.mark.parametrize("pipeline", ["ws-hopper{softmax-overlap=qk}",
                                      "ws-hopper{cooperative=2 pingpong=true persistent=false softmax-overlap=qk}",
                                      "ws-hopper{auto=false softmax-overlap=qk}"],
                         ids=["default", "pingpong", "fixed"])
@pytest.mark.parametrize("name,d,dtype,causal,bm",
                         [v for v in VARIANTS if v[1] == 64]
                         + [("flash_attention_bf16_bn112", 128, "bfloat16", False, 128)],
                         ids=[v[0] for v in VARIANTS if v[1] == 64] + ["flash_attention_bf16_bn112"])
def test_qk_ahead(name, d, dtype, causal, bm, pipeline):
    """The next tile's QK^T issued before the softmax (`softmax-overlap=qk`: two score tiles
    live, the first and last iterations peeled): right at every L, NaN-poisoned output."""
    folder = ROOT / ("test/Inputs/kernels" if name.endswith("_bn112") else "examples/kernels")
    k_ = wsdialects.compile(folder / f"{name}.mlir", pipeline=pipeline)
    assert "ws.qk_ahead" in str(k_.ir)
    check_shapes(k_, d, getattr(torch, dtype), causal, bm, seed=2)
