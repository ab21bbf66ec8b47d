"""GPU: the block-pointer attention (examples/triton/attention_block_ptr.py: `tl.make_block_ptr` /
`tl.advance`, K read transposed) compiled by us through ws-hopper, whose ws-tma-load turns its
Q, K^T and V loads into TMA loads (each head's offset a row offset of the whole tensor's view),
against torch:

- from the TTIR Triton 3.6 printed (test/Inputs/triton/v3.6, head dim 32), needing no Triton:
  contiguous tensors (the descriptors cover the arguments), K stored head-dim-major (its inner
  stride is not 1: the launch reads it through a contiguous copy) with V and O rows padded, and
  a Q whose head stride is not a multiple of its row stride (refused with a clear error);
- with `wsdialects.compile(fn)` where the installed Triton still has block pointers (3.4 to
  3.8): head dim 128, contiguous tensors (the unit strides compiled in as Triton specializes
  them), beside Triton's own compile of the same function.

Skips without torch or a Hopper GPU (and the second part without such a Triton)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from hopper_env import rel_err, torch_on_hopper

torch = torch_on_hopper()

import wsdialects  # noqa: E402
from wsdialects.runtime.launch import LaunchError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TTIR = ROOT / "test" / "Inputs" / "triton" / "v3.6" / "attention_block_ptr_f16_d32_64x32.ttir"
BLOCK_M = 64  # the checked-in TTIR's constexprs: HEAD_DIM 32, BLOCK_M 64, BLOCK_N 32
_compiled: dict = {}


def _flat(x):
    """A tensor as the run of memory from its first element to its last (how a pointer sees it)."""
    span = 1 + sum((n - 1) * s for n, s in zip(x.shape, x.stride()))
    return x.as_strided((span,), (1,))


def _ttir_attention(q, k, v, o, scale=0.1):
    if "k" not in _compiled:
        _compiled["k"] = wsdialects.compile(str(TTIR), pipeline="ws-hopper")
    Z, H, n_ctx, _ = q.shape
    o.fill_(float("nan"))
    _compiled["k"][(n_ctx // BLOCK_M, Z * H)](_flat(q), _flat(k), _flat(v), _flat(o), scale, *q.stride(),
                                               *k.stride(), *v.stride(), *o.stride(), H, n_ctx)
    torch.cuda.synchronize()
    return o


def _reference(q, k, v, scale=0.1):
    return torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=scale)


def _randn(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.float16)


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_checked_in_ttir_vs_torch(layout):
    torch.manual_seed(1)
    Z, H, N, D = 2, 3, 1024, 32
    if layout == "contiguous":
        q, k, v = _randn(Z, H, N, D), _randn(Z, H, N, D), _randn(Z, H, N, D)
        o_store = torch.full((Z, H, N, D), float("nan"), device="cuda", dtype=torch.float16)
        o = o_store
    else:
        q = _randn(Z, H, N, D)
        k = _randn(Z, H, D, N).transpose(2, 3)  # head-dim-major
        v = _randn(Z, H, N, D + 8)[..., :D]
        o_store = torch.full((Z, H, N, D + 8), float("nan"), device="cuda", dtype=torch.float16)
        o = o_store[..., :D]
    out = _ttir_attention(q, k, v, o)
    assert rel_err(out, _reference(q, k, v)) < 1e-2
    if layout == "strided":
        assert torch.isnan(o_store[..., D:]).all()  # the padding columns are not written
    first = out.clone()
    assert torch.equal(_ttir_attention(q, k, v, o), first)  # a launch seen before gives the same O


def test_head_stride_not_a_multiple_is_refused():
    """Q laid out (Z, N, H, D) and viewed (Z, H, N, D): head stride D, row stride H * D."""
    Z, H, N, D = 1, 2, 256, 32
    q = _randn(Z, N, H, D).transpose(1, 2)
    k, v = _randn(Z, H, N, D), _randn(Z, H, N, D)
    o = torch.empty(Z, H, N, D, device="cuda", dtype=torch.float16)
    with pytest.raises(LaunchError, match="not a multiple of the row stride"):
        _ttir_attention(q, k, v, o)


def _triton_with_block_pointers():
    triton = pytest.importorskip("triton")
    if tuple(int(x) for x in triton.__version__.split(".")[:2]) >= (3, 9):
        pytest.skip(f"block pointers are gone from triton {triton.__version__} (the TTIR test above covers them)")
    return triton


def test_compile_fn_vs_torch_and_triton():
    _triton_with_block_pointers()
    spec = importlib.util.spec_from_file_location("examples_triton_attention_block_ptr",
                                                  ROOT / "examples" / "triton" / "attention_block_ptr.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    torch.manual_seed(2)
    Z, H, N, D = 2, 4, 1024, 128
    q, v = _randn(Z, H, N, D), _randn(Z, H, N, D)
    k = _randn(Z, H, N, D)
    ref = _reference(q, k, v)
    theirs = m.attention_block_ptr(q, k, v, 0.1)
    ours = m.attention_block_ptr(q, k, v, 0.1, kernel=wsdialects.compile(m.attention_block_ptr_kernel))
    torch.cuda.synchronize()
    assert rel_err(theirs, ref) < 1e-2, "Triton's own compile disagrees with torch: the reference is wrong"
    assert rel_err(ours, ref) < 1e-2
