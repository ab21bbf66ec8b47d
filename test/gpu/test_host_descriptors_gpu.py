"""GPU: Triton's attention tutorial as Triton prints it (test/Inputs/triton/attention_desc_*.ttir:
device-side descriptors over Q, K, V, O of Z * H * N_CTX rows), compiled by ws-hopper, whose
ws-host-descriptors makes the four descriptors arguments the launch builds (`ws.host_descs`),
against torch: f16 and bf16, head dim 128 and 32, causal (two loops) and not; a misaligned Q (the
launch builds its descriptor over an aligned copy); a misaligned O (stored through: an error) and
arrays smaller than Z * H * N_CTX rows (an error). Needs no Triton. Skips without torch or a
Hopper GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopper_env import rel_err, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402
from wsdialects.runtime.launch import LaunchError  # noqa: E402

TTIR = Path(__file__).resolve().parents[1] / "Inputs" / "triton"
# name -> (N_CTX, HEAD_DIM, BLOCK_M) as the TTIR's constexprs fixed them, causal
KERNELS = {
    "attention_desc_f16_d128_n1024": (1024, 128, 128, False),
    "attention_desc_bf16_d128_n1024": (1024, 128, 128, False),
    "attention_desc_f16_d32_n128": (128, 32, 64, False),
    "attention_desc_causal_f16_d128_n1024": (1024, 128, 128, True),
}
_compiled: dict = {}


def _kernel(name):
    if name not in _compiled:
        _compiled[name] = wsdialects.compile(str(TTIR / f"{name}.ttir"), pipeline="ws-hopper")
    return _compiled[name]


def _dtype(name):
    return torch.bfloat16 if "bf16" in name else torch.float16


def _launch(name, q, k, v, o=None, Z=None, H=None, scale=0.1):
    n_ctx, _, block_m, _ = KERNELS[name]
    Z = q.shape[0] if Z is None else Z
    H = q.shape[1] if H is None else H
    o = torch.full_like(q, float("nan")) if o is None else o
    _kernel(name)[(n_ctx // block_m, Z * H)](q, k, v, o, scale, Z, H)
    torch.cuda.synchronize()
    return o


def _inputs(name, Z=2, H=3):
    n_ctx, d, _, _ = KERNELS[name]
    torch.manual_seed(Z * 7 + H)
    return [torch.randn(Z, H, n_ctx, d, device="cuda", dtype=_dtype(name)) for _ in range(3)]


def _reference(q, k, v, causal, scale=0.1):
    return torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal,
                                                            scale=scale)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_attention(name):
    q, k, v = _inputs(name)
    o = _launch(name, q, k, v)
    assert rel_err(o, _reference(q, k, v, KERNELS[name][3])) < 1e-2
    assert torch.equal(o, _launch(name, q, k, v))  # a launch seen before gives the same O


def test_misaligned_q_is_copied():
    name = "attention_desc_f16_d128_n1024"
    q, k, v = _inputs(name)
    buf = torch.empty(q.numel() + 1, device="cuda", dtype=q.dtype)
    q_odd = buf[1:].view(q.shape)
    q_odd.copy_(q)
    assert q_odd.data_ptr() % 16
    assert torch.equal(_launch(name, q_odd, k, v), _launch(name, q, k, v))


def test_misaligned_o_is_an_error():
    name = "attention_desc_f16_d128_n1024"
    q, k, v = _inputs(name)
    o_odd = torch.empty(q.numel() + 1, device="cuda", dtype=q.dtype)[1:].view(q.shape)
    with pytest.raises(LaunchError, match=r"argument 3 \(O\): the kernel writes through a TMA descriptor over it, "
                                          r"and TMA cannot take the view: a base address"):
        _launch(name, q, k, v, o=o_odd)


def test_arrays_smaller_than_the_descriptor():
    name = "attention_desc_f16_d128_n1024"
    q, k, v = _inputs(name, Z=1, H=2)
    with pytest.raises(LaunchError, match=r"argument 0 \(Q\): the kernel makes a descriptor of a 3072 x 128 tensor"):
        _launch(name, q, k, v, H=3)
