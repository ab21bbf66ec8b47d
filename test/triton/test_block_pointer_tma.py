"""ws-tma-load on the block-pointer attention (examples/triton/attention_block_ptr.py) as Triton 3.4
and 3.6 print it: interpreted as imported (pointer loads) and after ws-tma-load and ws-specialize
(TMA loads, warp-specialized) on random inputs, the same O bit for bit, close to numpy.

Both sides of the launch's choices are run: contiguous tensors (each descriptor covers the
argument itself, the heads' offsets rows of it) and strided ones (K stored head-dim-major, so
its inner stride is not 1 and the descriptor covers a contiguous copy; V and O with padded
rows). A tensor whose head stride is not a multiple of its row stride is refused with a clear
error, the `multiples` term of the contract.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import wsdialects
from wsdialects.context import make_context
from wsdialects.interpreter.tma_loads import tma_load_arguments
from wsdialects.triton import import_ttir
from wsdialects.triton.launch import expand

VERSIONS = Path(__file__).resolve().parents[1] / "Inputs" / "triton"
NAME = "attention_block_ptr_kernel"
Z, H, N_CTX, D = 2, 2, 128, 32


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"random seed {seed}")  # shown on failure
    return np.random.default_rng(seed)


def _module(version: str, passes: list[str]):
    path = VERSIONS / version / "attention_block_ptr_f16_d32_64x32.ttir"
    module = import_ttir(path.read_text(), str(path))
    for name in passes:
        wsdialects.available_passes()[name]()().apply(make_context(), module)
    return module


def _reference(q, k, v, sm_scale):
    s = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float32), k.astype(np.float32)) * sm_scale
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("zhmn,zhnd->zhmd", p / p.sum(-1, keepdims=True), v.astype(np.float32))


def _inputs(rng, layout: str):
    """q, k, v, o (Z, H, N_CTX, D) views and the arrays o is a view of."""
    def normal(shape):
        return rng.standard_normal(shape).astype(np.float16)

    if layout == "contiguous":
        q, k, v = normal((Z, H, N_CTX, D)), normal((Z, H, N_CTX, D)), normal((Z, H, N_CTX, D))
        o_store = np.zeros((Z, H, N_CTX, D), np.float16)
        return q, k, v, o_store, o_store
    q = normal((Z, H, N_CTX, D))
    k = normal((Z, H, D, N_CTX)).transpose(0, 1, 3, 2)  # head-dim-major: stride_kk = N_CTX, stride_kn = 1
    v = normal((Z, H, N_CTX, D + 8))[..., :D]  # rows of 80 bytes
    o_store = np.zeros((Z, H, N_CTX, D + 8), np.float16)
    return q, k, v, o_store[..., :D], o_store


def _args(q, k, v, o, sm_scale=0.3):
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "sm_scale": "fp32"}
    bound = dict(Q=q, K=k, V=v, O=o, sm_scale=sm_scale)
    for name, x in (("q", q), ("k", k), ("v", v), ("o", o)):
        for d, s in zip(("z", "h", "n" if name in "kv" else "m", "k"), x.strides):
            bound[f"stride_{name}{d}"] = s // x.itemsize
            sig[f"stride_{name}{d}"] = "i32"
    bound.update(H=H, N_CTX=N_CTX)
    sig.update(H="i32", N_CTX="i32")
    return expand(bound, sig, NAME)


def _run(module, q, k, v, o, o_store, seed=None):
    o_store[...] = np.nan
    wsdialects.interpret(module, NAME, (N_CTX // 64, Z * H), _args(q, k, v, o), seed=seed)
    return o_store.copy()


@pytest.mark.parametrize("version", ["v3.4", "v3.6"])
@pytest.mark.parametrize("passes", [["ws-tma-load"], ["ws-specialize"]])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_block_pointer_attention_through_tma(rng, version, passes, layout):
    q, k, v, o, o_store = _inputs(rng, layout)
    module = _module(version, passes)
    assert not [x for x in module.walk() if x.name == "tile.load"], "a pointer load is left"
    assert len([x for x in module.walk() if x.name == "tile.trans"]) >= 1, "K^T is not a transposed box"
    if passes == ["ws-specialize"]:
        assert [x.name for x in module.walk()].count("warp_group.partition") == 2, "not warp-specialized"
    before = _run(_module(version, []), q, k, v, o, o_store)
    after = _run(module, q, k, v, o, o_store, seed=11 if passes == ["ws-specialize"] else None)
    assert np.array_equal(before, after, equal_nan=True)
    np.testing.assert_allclose(after[..., :D].astype(np.float32), _reference(q, k, v, 0.3), rtol=2e-2, atol=2e-2)
    if layout == "strided":
        assert np.isnan(after[..., D:]).all()  # the padding columns are not written


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_the_views_are_the_arguments_or_copies(rng, layout):
    """Q, K, V's descriptors cover the whole tensors as rows of D (a head starting at the row its
    offset over the row stride gives): the arguments themselves where contiguous, K a contiguous
    copy where it is stored head-dim-major (its rows then one element apart)."""
    q, k, v, o, _ = _inputs(rng, layout)
    (kernel,) = [x for x in _module("v3.6", ["ws-tma-load"]).walk() if x.name == "func.func"]
    args = _args(q, k, v, o)
    views = list(tma_load_arguments(kernel.attributes["ws.tma_loads"], args, kernel.body.block.args).values())
    assert [w.shape[1] for w in views] == [D, D, D]
    assert views[0].shape[0] == Z * H * N_CTX and np.shares_memory(views[0], q)
    skz, skh, skn = (s // k.itemsize for s in k.strides[:3])
    for z in range(Z):
        for h in range(H):  # the kernel's row of head (z, h): its offset over the row stride
            first = (z * skz + h * skh) // skn
            assert np.array_equal(views[1][first:first + N_CTX], k[z, h])
    assert np.shares_memory(views[1], args[1]) == (layout == "contiguous")
    assert np.shares_memory(views[2], args[2])


def test_head_stride_not_a_multiple_of_the_row_stride(rng):
    """Q laid out (Z, N_CTX, H, D) and viewed (Z, H, N_CTX, D): its head stride D is not a multiple
    of its row stride H * D, so the whole tensor's rows cannot hold each head's start. The
    imported kernel reads it through pointers; the converted one is refused at launch, naming the
    argument and the strides."""
    q = rng.standard_normal((Z, N_CTX, H, D)).astype(np.float16).transpose(0, 2, 1, 3)
    k, v = (rng.standard_normal((Z, H, N_CTX, D)).astype(np.float16) for _ in range(2))
    o = np.zeros((Z, H, N_CTX, D), np.float16)
    _run(_module("v3.6", []), q, k, v, o, o)
    np.testing.assert_allclose(o.astype(np.float32), _reference(q, k, v, 0.3), rtol=2e-2, atol=2e-2)
    with pytest.raises(TypeError, match=r"argument 0 \(%Q\): the kernel reads it as rows of 64 elements .* "
                                        r"%stride_qh = 32 elements, which is not a multiple of the row stride"):
        _run(_module("v3.6", ["ws-tma-load"]), q, k, v, o, o)
