"""GPU correctness of attention training (wsdialects/runtime/attention_bwd.py: the forward
that stores LSE and the three backward kernels) against torch autograd of float32
`scaled_dot_product_attention`: O, dQ, dK, dV within 1e-2 relative error, for several (B, H, L)
including L = 1 and L not a multiple of the 128-row blocks (nor of 4: the padded rows of the
TMA form), causal and not, f16 and bf16, d 64 and 128, both forms of the backward; every output
poisoned with NaN first (an element not written fails). Skips
without torch or a Hopper GPU."""

from __future__ import annotations

import math

import pytest

from hopper_env import rel_err, torch_on_hopper

torch = torch_on_hopper()

import torch.nn.functional as F  # noqa: E402

from wsdialects.runtime import attention_bwd  # noqa: E402
from wsdialects.runtime.attention_bwd import attention, attention_backward, attention_forward  # noqa: E402

SHAPES = [(1, 1, 1), (1, 2, 100), (1, 2, 333), (2, 2, 1000), (1, 2, 4096)]  # (batch, heads, L)
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def reference(q, k, v, do, causal):
    qf, kf, vf = (x.detach().float().requires_grad_(True) for x in (q, k, v))
    o = F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal)
    o.backward(do.float())
    return o.detach(), qf.grad, kf.grad, vf.grad


@pytest.fixture
def poison(monkeypatch):
    """The runtime's result buffers start as NaN (torch.empty may hand back zeros or old
    results): an element a kernel does not write shows."""
    empty_like = torch.empty_like

    def nan_like(x, *a, **kw):
        out = empty_like(x, *a, **kw)
        return out.fill_(float("nan")) if out.is_floating_point() else out

    monkeypatch.setattr(torch, "empty_like", nan_like)
    empty = torch.empty

    def nan_empty(*a, **kw):
        out = empty(*a, **kw)
        return out.fill_(float("nan")) if out.is_floating_point() else out

    monkeypatch.setattr(torch, "empty", nan_empty)


@pytest.mark.parametrize("form", sorted(attention_bwd.FORMS))
@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("d", [128, 64])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("B,H,L", SHAPES)
def test_backward_matches_autograd(B, H, L, causal, d, dt, form, poison):
    """Every form of the backward (attention_bwd.FORMS: the default, dQ by TMA reduce-add and
    LSE / Delta as TMA boxes of padded rows, in every configuration; the others in bf16 at d 128)."""
    if form != attention_bwd.DEFAULT_FORM and (dt, d) != ("bf16", 128):
        pytest.skip("the other forms: bf16, d 128")
    torch.manual_seed(L + d)
    q, k, v, do = (torch.randn(B, H, L, d, device="cuda", dtype=DTYPES[dt]) for _ in range(4))
    o, lse = attention_forward(q, k, v, causal=causal)
    dq, dk, dv = attention_backward(q, k, v, o, lse, do, causal=causal, form=form)
    torch.cuda.synchronize()
    o_ref, dq_ref, dk_ref, dv_ref = reference(q, k, v, do, causal)
    assert rel_err(o, o_ref) < 1e-2
    # LSE in log2 units: log2(e) * logsumexp of the scaled scores
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(d)
    if causal:
        s = s.masked_fill(torch.ones(L, L, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    assert rel_err(lse, torch.logsumexp(s, -1) * math.log2(math.e)) < 1e-4
    for name, got, want in (("dq", dq, dq_ref), ("dk", dk, dk_ref), ("dv", dv, dv_ref)):
        if L == 1 and name in ("dq", "dk"):  # one key: P = 1 and dP - Delta = 0, so dQ = dK = 0 exactly
            # (the float32 reference gives rounding noise of ~1e-7 there, not a value to compare with)
            assert not torch.isnan(got).any() and got.float().abs().max() < 1e-3, name
        else:
            assert rel_err(got, want) < 1e-2, name


def test_explicit_scale_and_three_d_tensors(poison):
    """[B*H, L, d] tensors and a given sm_scale (not 1/sqrt(d))."""
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(6, 300, 64, device="cuda", dtype=torch.float16) for _ in range(4))
    scale = 0.3
    o, lse = attention_forward(q, k, v, sm_scale=scale)
    dq, dk, dv = attention_backward(q, k, v, o, lse, do, sm_scale=scale)
    qf, kf, vf = (x.float().requires_grad_(True) for x in (q, k, v))
    ref = F.scaled_dot_product_attention(qf, kf, vf, scale=scale)
    ref.backward(do.float())
    for got, want in ((o, ref.detach()), (dq, qf.grad), (dk, kf.grad), (dv, vf.grad)):
        assert rel_err(got, want) < 1e-2


def test_kernels_compiled_once():
    attention_bwd._compiled.clear()
    q = torch.randn(1, 1, 130, 64, device="cuda", dtype=torch.float16)
    for _ in range(2):
        o, lse = attention_forward(q, q, q)
        attention_backward(q, q, q, o, lse, q)
    assert len(attention_bwd._compiled) == 4


def test_bad_inputs_are_named():
    q = torch.randn(1, 1, 64, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(TypeError, match="float16 or bfloat16"):
        attention_forward(q.float(), q.float(), q.float())
    o, lse = attention_forward(q, q, q)
    with pytest.raises(ValueError, match="lse must be float32"):
        attention_backward(q, q, q, o, lse.half(), q)
    with pytest.raises(ValueError, match="must match q"):
        attention_backward(q, q[..., :32], q, o, lse, q)
    with pytest.raises(ValueError, match="form must be one of"):
        attention_backward(q, q, q, o, lse, q, form="red")


def test_autograd_op():
    """`attention` as a torch autograd op: loss.backward() gives SDPA's gradients."""
    torch.manual_seed(1)
    q, k, v = (torch.randn(2, 2, 200, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    w = torch.randn(2, 2, 200, 128, device="cuda")
    (attention(q, k, v, causal=True).float() * w).sum().backward()
    qf, kf, vf = (x.detach().float().requires_grad_(True) for x in (q, k, v))
    (F.scaled_dot_product_attention(qf, kf, vf, is_causal=True) * w).sum().backward()
    for got, want in ((q.grad, qf.grad), (k.grad, kf.grad), (v.grad, vf.grad)):
        assert rel_err(got, want) < 1e-2
