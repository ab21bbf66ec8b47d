"""GPU correctness of the solver-scheduled attention backward (issue 38, Twill on the backward): the
main kernel as ws-schedule{arch=h100} planned it (stored as IR in
test/Inputs/kernels/scheduled/flash_attention_bwd_bf16.mlir: no OR-Tools on the GPU machine),
compiled by ws-hopper (its organisation: the cost model's, and one key block per CTA), run between
the runtime's preprocess and dQ kernels (`attention_backward(main=...)`), against torch autograd of
float32 `scaled_dot_product_attention`: dQ, dK, dV within 1e-2 relative error at several (B, H, L)
including L = 1 and L cutting the last blocks, outputs poisoned with NaN first. bf16, d 128,
not causal (the stored schedule's kernel). Skips without torch or a Hopper GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopper_env import rel_err, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402
from test_attention_bwd_gpu import poison, reference  # noqa: E402,F401 - poison is a fixture
from wsdialects.runtime.attention_bwd import attention_backward, attention_forward  # noqa: E402

STORED = Path(__file__).resolve().parents[1] / "Inputs" / "kernels" / "scheduled" / "flash_attention_bwd_bf16.mlir"
PIPELINES = ["ws-hopper", "ws-hopper{persistent=false}"]
SHAPES = [(1, 1, 1), (1, 2, 100), (1, 3, 333), (2, 2, 1000), (1, 2, 4096)]  # (batch, heads, L)


@pytest.fixture(scope="module")
def compiled():
    """pipeline -> the stored schedule compiled with it, made once for the module."""
    made = {}

    def get(pipeline):
        if pipeline not in made:
            made[pipeline] = wsdialects.compile(STORED, pipeline=pipeline)
            assert '"consumer_w1"' in str(made[pipeline].ir)  # the schedule's two compute partitions
        return made[pipeline]

    return get


@pytest.mark.parametrize("pipeline", PIPELINES, ids=["", "one-tile-per-cta"])
@pytest.mark.parametrize("B,H,L", SHAPES)
def test_scheduled_backward_matches_autograd(B, H, L, pipeline, compiled, poison):
    torch.manual_seed(L)
    q, k, v, do = (torch.randn(B, H, L, 128, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    o, lse = attention_forward(q, k, v)
    dq, dk, dv = attention_backward(q, k, v, o, lse, do, main=compiled(pipeline), form="tma")
    torch.cuda.synchronize()
    _, dq_ref, dk_ref, dv_ref = reference(q, k, v, do, False)
    for name, got, want in (("dq", dq, dq_ref), ("dk", dk, dk_ref), ("dv", dv, dv_ref)):
        if L == 1 and name in ("dq", "dk"):  # one key: P = 1 and dP - Delta = 0, so dQ = dK = 0 exactly
            assert not torch.isnan(got).any() and got.float().abs().max() < 1e-3, name
        else:
            assert rel_err(got, want) < 1e-2, name
