"""GPU correctness of the FP8 attention forward kernels (examples/kernels/flash_attention_fp8*.mlir:
e4m3 Q, K, V with q/k/v descales, O bf16 or f16; V as [B*H, L, d] or given as V^T
[B*H, d, L]) against float32 `scaled_dot_product_attention` of the dequantized inputs, at
ragged L, outputs poisoned with NaN; skips without torch or a Hopper GPU.

Two references: float32 SDPA of the dequantized inputs (what a user compares with; the
tolerance is what rounding P to e4m3 costs, a few percent), and the kernel's own algorithm
in torch (blocks of 128 keys, online softmax, P rounded to e4m3 for P·V), which the result
must match to the output's rounding: a P fragment or a V transpose in the wrong order would
mix keys and fail it by far. V is transposed by the producer (the default) or, with
`v-transpose=consumer`, by the consumers: both are run.

    python -m pytest -q -n 0 test/gpu/test_attention_fp8_gpu.py
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
KERNELS = ROOT / "examples" / "kernels"
D = 128
SHAPES = [(1, 1, 1), (1, 2, 100), (2, 3, 384), (1, 2, 1000), (1, 2, 4096)]  # (batch, heads, L)
VARIANTS = [("flash_attention_fp8", False, False), ("flash_attention_fp8_causal", True, False),
            ("flash_attention_fp8_vt", False, True)]  # (kernel, causal, V given as V^T)
PIPELINES = ["ws-hopper", "ws-hopper{cooperative=2 pingpong=true}",
             "ws-hopper{cooperative=2 pingpong=true persistent=true programs=5}"]
_compiled: dict = {}


def kernel(name: str, pipeline: str, out: str, tmp_path_factory):
    key = (name, pipeline, out)
    if key not in _compiled:
        path = KERNELS / f"{name}.mlir"
        if out == "float16":  # the same kernel with an f16 O
            path2 = tmp_path_factory.mktemp("fp8") / f"{name}_f16.mlir"
            path2.write_text(path.read_text().replace("xbf16>", "xf16>"))
            path = path2
        _compiled[key] = wsdialects.compile(path, pipeline=pipeline)
    return _compiled[key]


def inputs(B, H, L, per_head, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = ((torch.randn(B * H, L, D, device="cuda", generator=g) * s).to(torch.float8_e4m3fn)
               for s in (1.0, 1.0, 2.0))
    n = B * H if per_head else 1
    qd, kd, vd = (torch.rand(n, device="cuda", generator=g) * 1.5 + 0.25 for _ in range(3))
    return q, k, v, qd, kd, vd


def modelled(q, k, v, qd, kd, vd, causal, sm_scale):
    """The kernel's algorithm in float32 (torch): per block of 128 keys the running max, P =
    exp2(s * scale - m) rounded to e4m3 for P·V, l summing P unrounded; O = acc * vd / l."""
    BH, L, _ = q.shape
    scale = (sm_scale * 1.44269504 * qd * kd).view(-1, 1, 1)
    qf = q.float()
    rows = torch.arange(L, device="cuda")
    m = torch.full((BH, L, 1), -math.inf, device="cuda")
    l_ = torch.zeros((BH, L, 1), device="cuda")
    acc = torch.zeros((BH, L, D), device="cuda")
    for j0 in range(0, L, 128):
        kb, vb = k[:, j0:j0 + 128].float(), v[:, j0:j0 + 128].float()
        s = qf @ kb.transpose(1, 2)
        if causal:
            cols = j0 + torch.arange(kb.shape[1], device="cuda")
            s = s.masked_fill(cols[None, None, :] > rows[None, :, None], -math.inf)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True) * scale)
        p = torch.nan_to_num(torch.exp2(s * scale - m_new))
        alpha = torch.nan_to_num(torch.exp2(m - m_new), nan=1.0)
        l_ = l_ * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p.to(torch.float8_e4m3fn).float() @ vb
        m = m_new
    return acc * (vd.view(-1, 1, 1) / l_)


def check(name, causal, vt, k_, out_dtype, per_head=True, seed=0):
    errs = []
    for B, H, L in SHAPES:
        q, k, v, qd, kd, vd = inputs(B, H, L, per_head, seed + B * 1000 + H * 100 + L)
        o = torch.full((B * H, L, D), float("nan"), device="cuda", dtype=out_dtype)
        if vt:  # V^T [B*H, d, L], rows padded to 16 bytes (TMA's row stride); zeros past L
            Lp = (L + 15) // 16 * 16
            v_in = torch.zeros((B * H, D, Lp), device="cuda", dtype=torch.float8_e4m3fn)
            v_in[:, :, :L] = v.transpose(1, 2)
        else:
            v_in = v
        sm_scale = 1 / math.sqrt(D)
        k_[(L + 127) // 128, B * H](q, k, v_in, o, qd, kd, vd, 1 if per_head else 0, L, sm_scale)
        torch.cuda.synchronize()
        assert not torch.isnan(o).any(), f"NaN in the output (unwritten elements?) at {(B, H, L)}"
        expand = (lambda x: x) if per_head else (lambda x: x.expand(B * H))
        deq = [(x.float() * expand(d).view(-1, 1, 1)).view(B, H, L, D) for x, d in ((q, qd), (k, kd), (v, vd))]
        ref = F.scaled_dot_product_attention(*deq, is_causal=causal).reshape(B * H, L, D)
        model = modelled(q, k, v, expand(qd), expand(kd), expand(vd), causal, sm_scale)
        err_ref = ((o.float() - ref).norm() / ref.norm()).item()
        err_model = ((o.float() - model).norm() / model.norm()).item()
        assert err_model < 1e-2, (name, (B, H, L), err_model)
        assert err_ref < 6e-2, (name, (B, H, L), err_ref)
        errs.append((err_model, err_ref))
    return errs


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name,causal,vt", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_fp8_attention(name, causal, vt, pipeline, tmp_path_factory):
    check(name, causal, vt, kernel(name, pipeline, "bfloat16", tmp_path_factory), torch.bfloat16)


PLACED = ["ws-hopper{v-transpose=%s}", "ws-hopper{cooperative=2 pingpong=true persistent=true programs=5 v-transpose=%s}",
          "ws-hopper{depth=2 mma-depth=1 v-transpose=%s}", "ws-hopper{depth=1 mma-depth=0 v-transpose=%s}"]


@pytest.mark.parametrize("placement", ["producer", "consumer"])
@pytest.mark.parametrize("pipeline", PLACED, ids=["default", "pingpong-persistent", "depth2", "depth1"])
@pytest.mark.parametrize("name,causal,vt", VARIANTS[:2], ids=[v[0] for v in VARIANTS[:2]])
def test_fp8_v_transpose_placements(name, causal, vt, pipeline, placement, tmp_path_factory):
    """V transposed by the producer into a ring of its own (ws-producer-transpose, the default)
    or by the consumers into their staging buffer (ws-stage-operands): both correct, under the
    organisations that change the producer's loop (persistent tiles, the lag of one tile with
    two V slots, none with one slot)."""
    check(name, causal, vt, kernel(name, pipeline % placement, "bfloat16", tmp_path_factory), torch.bfloat16,
          seed=3)


@pytest.mark.parametrize("placement", ["producer", "consumer"])
@pytest.mark.parametrize("pipeline", PLACED[:2], ids=["default", "pingpong-persistent"])
@pytest.mark.parametrize("name,causal,vt", VARIANTS[:2], ids=[v[0] for v in VARIANTS[:2]])
def test_fp8_keys_interleaved(name, causal, vt, pipeline, placement, tmp_path_factory):
    """ws-hopper{fp8-keys=interleaved}: V^T stored with FlashAttention-3's key order and P's
    A fragment in the same order (no quad shuffles), under both V transpose placements."""
    pipe = (pipeline % placement).replace("}", " fp8-keys=interleaved}")
    check(name, causal, vt, kernel(name, pipe, "bfloat16", tmp_path_factory), torch.bfloat16, seed=4)


@pytest.mark.parametrize("name,causal,vt", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_fp8_attention_f16_out_per_tensor_descale(name, causal, vt, tmp_path_factory):
    check(name, causal, vt, kernel(name, "ws-hopper", "float16", tmp_path_factory), torch.float16,
          per_head=False, seed=7)


def test_bad_input_is_named(tmp_path_factory):
    """An f16 Q where the kernel takes e4m3 is refused by the launch, naming the argument."""
    k_ = kernel("flash_attention_fp8", "ws-hopper", "bfloat16", tmp_path_factory)
    q, k, v, qd, kd, vd = inputs(1, 1, 128, True, 0)
    o = torch.empty((1, 128, D), device="cuda", dtype=torch.bfloat16)
    with pytest.raises(Exception, match="q_desc"):
        k_[1, 1](q.half(), k, v, o, qd, kd, vd, 1, 128, 1 / math.sqrt(D))


def test_unpadded_v_transposed_is_refused(tmp_path_factory):
    """V^T rows of L bytes need L to be a multiple of 16 (TMA's row stride): an unpadded one is
    refused by the launch, naming the argument, not read wrong."""
    k_ = kernel("flash_attention_fp8_vt", "ws-hopper", "bfloat16", tmp_path_factory)
    q, k, v, qd, kd, vd = inputs(1, 1, 100, True, 0)
    o = torch.empty((1, 100, D), device="cuda", dtype=torch.bfloat16)
    with pytest.raises(Exception, match="vt_desc"):
        k_[1, 1](q, k, v.transpose(1, 2).contiguous(), o, qd, kd, vd, 1, 100, 1 / math.sqrt(D))


def _sdpa_masked(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@pytest.mark.parametrize("pipeline", PIPELINES[:2])
@pytest.mark.parametrize("H,Hkv", [(8, 2), (4, 1)])
def test_fp8_gqa(H, Hkv, pipeline, tmp_path_factory):
    """flash_attention_fp8_gqa: K/V [B*Hkv, L, d], query head b*H + h reads K/V head b*Hkv + h/(H/Hkv)."""
    k_ = kernel("flash_attention_fp8_gqa", pipeline, "bfloat16", tmp_path_factory)
    for B, L in ((2, 100), (1, 1000)):
        g = torch.Generator(device="cuda").manual_seed(L + H)
        q = torch.randn(B * H, L, D, device="cuda", generator=g).to(torch.float8_e4m3fn)
        k, v = (torch.randn(B * Hkv, L, D, device="cuda", generator=g).to(torch.float8_e4m3fn) for _ in range(2))
        qd = torch.rand(B * H, device="cuda", generator=g) + 0.5
        kd, vd = (torch.rand(B * Hkv, device="cuda", generator=g) + 0.5 for _ in range(2))
        o = torch.full((B * H, L, D), float("nan"), device="cuda", dtype=torch.bfloat16)
        k_[(L + 127) // 128, B * H](q, k, v, o, qd, kd, vd, 1, H, Hkv, L, 1 / math.sqrt(D))
        torch.cuda.synchronize()
        idx = torch.tensor([(bh // H) * Hkv + (bh % H) // (H // Hkv) for bh in range(B * H)], device="cuda")
        model = modelled(q, k[idx], v[idx], qd, kd[idx], vd[idx], False, 1 / math.sqrt(D))
        deq = [x.float() * d.view(-1, 1, 1) for x, d in ((q, qd), (k[idx], kd[idx]), (v[idx], vd[idx]))]
        ref = F.scaled_dot_product_attention(*deq)
        assert not torch.isnan(o).any()
        assert ((o.float() - model).norm() / model.norm()).item() < 1e-2
        assert ((o.float() - ref).norm() / ref.norm()).item() < 6e-2


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("window", [1, 100, 256, 5000])
def test_fp8_sliding_window(window, pipeline, tmp_path_factory):
    """flash_attention_fp8_window: query m attends keys m - window < n <= m."""
    k_ = kernel("flash_attention_fp8_window", pipeline, "bfloat16", tmp_path_factory)
    for B, H, L in ((1, 2, 300), (2, 2, 1000), (1, 1, 4096)):
        q, k, v, qd, kd, vd = inputs(B, H, L, True, window + L)
        o = torch.full((B * H, L, D), float("nan"), device="cuda", dtype=torch.bfloat16)
        k_[(L + 127) // 128, B * H](q, k, v, o, qd, kd, vd, 1, window, L, 1 / math.sqrt(D))
        torch.cuda.synchronize()
        m_, n_ = torch.arange(L, device="cuda")[:, None], torch.arange(L, device="cuda")[None, :]
        allowed = (n_ <= m_) & (n_ > m_ - window)
        deq = [x.float() * d.view(-1, 1, 1) for x, d in ((q, qd), (k, kd), (v, vd))]
        ref = _sdpa_masked(*deq, allowed)
        assert not torch.isnan(o).any()
        assert ((o.float() - ref).norm() / ref.norm()).item() < 6e-2


@pytest.mark.parametrize("causal", [False, True])
def test_triton_fp8_attention(causal):
    """examples/triton/attention_fp8.py compiled by us (`wsdialects.compile(fn)`, launched as
    Triton launches it) against float32 SDPA of the dequantized inputs; Triton's own compile
    of the same source is checked too where it builds."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("examples_triton_attention_fp8",
                                                  ROOT / "examples" / "triton" / "attention_fp8.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    Z, H, N = 2, 4, 1024
    g = torch.Generator(device="cuda").manual_seed(11)
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", generator=g).to(torch.float8_e4m3fn) for _ in range(3))
    qd, kd, vd = (torch.rand(Z, H, device="cuda", generator=g) + 0.5 for _ in range(3))
    deq = [x.float() * d.view(Z, H, 1, 1) for x, d in ((q, qd), (k, kd), (v, vd))]
    ref = F.scaled_dot_product_attention(*deq, is_causal=causal, scale=0.1)
    ours = m.attention_fp8(q, k, v, qd, kd, vd, causal, 0.1, kernel=wsdialects.compile(m.attention_fp8_kernel))
    torch.cuda.synchronize()
    assert ((ours.float() - ref).norm() / ref.norm()).item() < 6e-2
    try:
        theirs = m.attention_fp8(q, k, v, qd, kd, vd, causal, 0.1)
    except Exception as e:  # noqa: BLE001 - Triton's own build of an fp8 V as stored
        pytest.skip(f"Triton's own compile: {type(e).__name__}: {e}")
    assert ((theirs.float() - ref).norm() / ref.norm()).item() < 6e-2
