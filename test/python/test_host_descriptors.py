"""ws-host-descriptors: Triton's attention (device-side descriptors, imported from TTIR) interpreted
as imported, after the pass, after ws-specialize and after ws-hopper (which run it first) on random
inputs gives the same O, and O agrees with numpy; the causal kernel (two loops) too. The launch's
side of the contract (`ws.host_descs`): each descriptor covers the pointer argument's tensor, or an
aligned copy of it where TMA cannot take it and the kernel only reads it; a stored-through argument
TMA cannot take and a tensor past the array are clear errors. A 3-D tensor read in 2-D boxes, the
sizes and strides from arguments, likewise before and after."""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from conftest import rel_err
from kernel_cache import compile_kernel, parse_kernel
from wsdialects.interpreter.tma_loads import host_desc_arguments
from wsdialects.transforms.partition import kernels

ROOT = Path(__file__).resolve().parents[1]
TTIR = ROOT / "Inputs" / "triton"
THREE_D = ROOT / "transforms" / "Inputs" / "host-descriptors.mlir"
N_CTX, BLOCK_M = 128, 64  # the d32 kernels' N_CTX and BLOCK_M constexprs


def _inputs(rng, dtype, Z=1, H=2, D=32):
    return [rng.standard_normal((Z, H, N_CTX, D)).astype(dtype) for _ in range(3)]


def _attention(module, q, k, v, scale, o=None):
    Z, H = q.shape[:2]
    o = np.full(q.shape, np.nan, q.dtype) if o is None else o
    wsdialects.interpret(module, "attention_desc_kernel", (N_CTX // BLOCK_M, Z * H), [q, k, v, o, scale, Z, H], seed=5)
    return o


def _reference(q, k, v, scale, causal):
    s = np.einsum("zhnd,zhmd->zhnm", q.astype(np.float32), k.astype(np.float32)) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v.astype(np.float32)


@pytest.mark.parametrize("pipeline", ["ws-host-descriptors", "ws-specialize", "ws-hopper"])
@pytest.mark.parametrize("name,dtype,causal", [("attention_desc_f16_d32_n128", np.float16, False),
                                               ("attention_desc_causal_bf16_d32_n128", ml_dtypes.bfloat16, True)])
def test_attention_preserves_semantics(name, dtype, causal, pipeline, rng):
    path = TTIR / f"{name}.ttir"
    module = compile_kernel(path, pipeline, shared=True)
    assert not [o for o in module.walk() if o.name == "tile.make_desc"], "a tile.make_desc is left"
    assert len(kernels(module)[0].attributes["ws.host_descs"]) == 4
    q, k, v = _inputs(rng, dtype)
    before = _attention(parse_kernel(path, shared=True), q, k, v, 0.3)
    after = _attention(module, q, k, v, 0.3)
    assert np.array_equal(before, after)
    assert rel_err(after, _reference(q, k, v, 0.3, causal)) < 2e-2


def _params(name="attention_desc_f16_d32_n128"):
    (kernel,) = kernels(compile_kernel(TTIR / f"{name}.ttir", "ws-host-descriptors", shared=True))
    return kernel.attributes["ws.host_descs"], kernel.body.block.args


def test_the_descriptor_covers_the_argument_or_a_copy(rng):
    """Aligned arrays: views of the arguments themselves (Z * H * 128 rows of 32). Q 2 bytes past a
    16-byte boundary: an aligned copy of the same values, and the kernel computes the same O."""
    attr, params = _params()
    q, k, v = _inputs(rng, np.float16)
    o = np.zeros_like(q)
    views = host_desc_arguments(attr, [q, k, v, o, 0.3, 1, 2], params)
    assert sorted(views) == [7, 8, 9, 10]
    for arr, d in zip((q, k, v, o), (7, 8, 9, 10)):
        assert views[d].shape == (256, 32) and np.shares_memory(views[d], arr)
    buf = np.zeros(q.size + 1, np.float16)
    q_odd = buf[1:].reshape(q.shape)
    q_odd[...] = q
    assert q_odd.ctypes.data % 16
    copied = host_desc_arguments(attr, [q_odd, k, v, o, 0.3, 1, 2], params)[7]
    assert not np.shares_memory(copied, q_odd) and np.array_equal(copied, q.reshape(256, 32))
    assert copied.ctypes.data % 16 == 0
    module = compile_kernel(TTIR / "attention_desc_f16_d32_n128.ttir", "ws-specialize", shared=True)
    assert np.array_equal(_attention(module, q_odd, k, v, 0.3), _attention(module, q, k, v, 0.3))


def test_launch_errors(rng):
    """O is stored through: a misaligned O is an error naming it (a copy would lose the stores);
    a Z * H larger than the arrays hold is an error naming the tensor the kernel describes."""
    attr, params = _params()
    q, k, v = _inputs(rng, np.float16)
    buf = np.zeros(q.size + 1, np.float16)
    o_odd = buf[1:].reshape(q.shape)
    with pytest.raises(TypeError, match=r"argument 3 \(%O\): the kernel writes through a TMA descriptor over it, "
                                        r"and TMA cannot take the view: a base address of \d+ bytes is not a "
                                        r"multiple of 16"):
        host_desc_arguments(attr, [q, k, v, o_odd, 0.3, 1, 2], params)
    with pytest.raises(TypeError, match=r"argument 0 \(%Q\): the kernel makes a descriptor of a 384 x 32 tensor "
                                        r"with strides \[32, 1\] over it, which the array of 8192 elements"):
        host_desc_arguments(attr, [q, k, v, np.zeros_like(q), 0.3, 1, 3], params)
    module = compile_kernel(TTIR / "attention_desc_f16_d32_n128.ttir", "ws-host-descriptors", shared=True)
    with pytest.raises(TypeError, match=r"argument 3 \(%O\): the kernel writes through"):
        _attention(module, q, k, v, 0.3, o=o_odd)
    with pytest.raises(TypeError, match=r"argument 0 \(%Q\): the kernel makes a descriptor of a -128 x 32 tensor "
                                        r"with strides \[32, 1\] over it: a size or stride is negative"):
        host_desc_arguments(attr, [q, k, v, np.zeros_like(q), 0.3, 1, -1], params)


def test_empty_tensors_are_legal(rng):
    """Z = 0: every descriptor covers a 0 x 32 tensor, which the kernel reads and writes nothing
    of; the launch (the shared check, `tma_common.launch_view`) calls the view empty, not a
    problem, even for O, stored through and misaligned (there is nothing to store)."""
    from wsdialects.transforms.tma_common import host_desc_contract, launch_view

    attr, params = _params()
    q, k, v = _inputs(rng, np.float16)
    o_odd = np.zeros(q.size + 1, np.float16)[1:].reshape(q.shape)
    views = host_desc_arguments(attr, [q, k, v, o_odd, 0.3, 0, 2], params)
    assert sorted(views) == [7, 8, 9, 10] and all(x.shape == (0, 32) for x in views.values())
    eo = host_desc_contract(attr)[3]
    assert eo["stored"]
    assert launch_view(eo, [q, k, v, o_odd, 0.3, 0, 2], q.size, 2, 2, str) == ([0, 32], [32, 1], False, True, None)
    assert launch_view(eo, [q, k, v, o_odd, 0.3, 1, 2], q.size, 2, 2, str).problem is not None


@pytest.mark.parametrize("pipeline", ["ws-host-descriptors", "ws-specialize"])
def test_three_d_tensor_in_two_d_boxes(pipeline, rng):
    """host-descriptors.mlir: O[bh, :64] = Q[bh, :64] + Q[bh, 64:128] of a (BH, L, 64) tensor, both
    descriptors built from BH and L; before and after give the same O."""
    BH, L = 3, 192
    q = rng.standard_normal((BH, L, 64)).astype(np.float16)
    outs = []
    for module in (parse_kernel(THREE_D, shared=True), compile_kernel(THREE_D, pipeline, shared=True)):
        o = np.full((BH, L, 64), 7, np.float16)
        wsdialects.interpret(module, "three_d", (1, BH), [q, o, BH, L])
        outs.append(o)
    assert np.array_equal(outs[0], outs[1])
    assert np.array_equal(outs[1][:, :64], q[:, :64] + q[:, 64:128])
    assert (outs[1][:, 64:] == 7).all()
