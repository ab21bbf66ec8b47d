"""The TTIR of the Triton versions users have, imported and interpreted against numpy.

test/Inputs/triton/ holds the example kernels as Triton 3.9 prints them; v3.4/ and v3.6/
(tools/regen_ttir.py --out) hold representative ones as Triton 3.4 and 3.6 print them: the
descriptor GEMM, the pointer GEMM, attention with device-side descriptors (causal and not)
and the block-pointer attention, which both versions rewrite into pointer tiles whose
offsets are i64 tiles. test/triton/Inputs/block_pointer_rowsum_v3.X.ttir adds block pointers
with boundary checks (i64 masks, zero padding). A change of syntax or of the ops a version
emits is caught here without that Triton installed. Shapes are small and ragged where the
kernel masks.
"""

from __future__ import annotations

from pathlib import Path

import os

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from wsdialects.triton import import_ttir
from wsdialects.triton.launch import expand
from references import attention_reference

HERE = Path(__file__).resolve().parent
VERSIONS = HERE.parent / "Inputs" / "triton"
LOCAL = HERE / "Inputs"
BF16 = ml_dtypes.bfloat16
VERSION_DIRS = ("v3.4", "v3.6")  # test/Inputs/triton/ itself is Triton 3.9


@pytest.fixture
def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"random seed {seed}")  # shown on failure
    return np.random.default_rng(seed)


class Desc:
    """What a host TensorDescriptor carries (base, shape, strides, block shape)."""

    def __init__(self, base, block):
        self.base, self.block_shape = base, block
        self.shape, self.strides = base.shape, tuple(s // base.itemsize for s in base.strides)


def load(path: Path):
    text = path.read_text()
    return import_ttir(text, str(path))


def run(path: Path, kernel: str, grid, signature: dict, **bound):
    wsdialects.interpret(load(path), kernel, grid, expand(bound, signature, kernel))


def close(got, want, tol=2e-2):
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=tol, atol=tol)


def cdiv(a, b):
    return -(-a // b)


@pytest.mark.parametrize("version", VERSION_DIRS)
def test_checked_in_by_that_version(version):
    """Each file says it was printed by the Triton its folder names (regen_ttir refuses others)."""
    files = sorted((VERSIONS / version).glob("*.ttir")) + sorted(LOCAL.glob(f"*_{version}.ttir"))
    assert len(files) >= 5
    for f in files:
        assert f"with triton {version[1:]}." in f.read_text().splitlines()[0], f


@pytest.mark.parametrize("version", VERSION_DIRS)
def test_gemm_desc(rng, version):
    M, N, K = 96, 80, 80
    a = rng.standard_normal((M, K)).astype(BF16)
    b = rng.standard_normal((N, K)).astype(BF16)
    c = np.zeros((M, N), BF16)
    sig = {"a_desc": "tensordesc<bf16>", "b_desc": "tensordesc<bf16>", "c_desc": "tensordesc<bf16>",
           "M": "i32", "N": "i32", "K": "i32"}
    run(VERSIONS / version / "gemm_desc_bf16_64x64x32.ttir", "gemm_desc_kernel", cdiv(M, 64) * cdiv(N, 64), sig,
        a_desc=Desc(a, [64, 32]), b_desc=Desc(b, [64, 32]), c_desc=Desc(c, [64, 64]), M=M, N=N, K=K)
    close(c, a.astype(np.float32) @ b.astype(np.float32).T)


@pytest.mark.parametrize("version", VERSION_DIRS)
def test_gemm_pointer(rng, version):
    """GROUP_M = 2 over a 3 x 2 tile grid, K = 72 (a masked tail), B a transposed view."""
    M, N, K = 130, 96, 72
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16).T  # K x N, strides (1, K)
    c = np.zeros((M, N), np.float16)
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", **{n: "i32" for n in (
        "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")}}
    run(VERSIONS / version / "gemm_pointer_f16_64x64x32_g2.ttir", "gemm_pointer_kernel", cdiv(M, 64) * cdiv(N, 64),
        sig, a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K, stride_am=K, stride_ak=1, stride_bk=1, stride_bn=K,
        stride_cm=N, stride_cn=1)
    close(c, a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize("version", VERSION_DIRS)
@pytest.mark.parametrize("name,dtype,causal", [("attention_desc_f16_d32_n128", np.float16, False),
                                               ("attention_desc_causal_bf16_d32_n128", BF16, True)])
def test_attention_device_descriptors(rng, version, name, dtype, causal):
    Z, H, N_CTX, D = 1, 2, 128, 32
    q, k, v = (rng.standard_normal((Z, H, N_CTX, D)).astype(dtype) for _ in range(3))
    o = np.zeros_like(q)
    t = "fp16" if dtype == np.float16 else "bf16"
    sig = {"Q": f"*{t}", "K": f"*{t}", "V": f"*{t}", "O": f"*{t}", "sm_scale": "fp32", "Z": "i32", "H": "i32"}
    run(VERSIONS / version / f"{name}.ttir", "attention_desc_kernel", (N_CTX // 64, Z * H), sig,
        Q=q, K=k, V=v, O=o, sm_scale=0.3, Z=Z, H=H)
    close(o, attention_reference(q, k, v, 0.3, causal))


@pytest.mark.parametrize("version", VERSION_DIRS)
def test_attention_block_pointers(rng, version):
    """Block pointers rewritten by Triton into i64-addressed pointer tiles; K and O are strided
    views (K stored head-dim-major, O with a padded row), so every stride takes part."""
    Z, H, N_CTX, D = 2, 2, 128, 32
    q, v = (rng.standard_normal((Z, H, N_CTX, D)).astype(np.float16) for _ in range(2))
    k = np.ascontiguousarray(rng.standard_normal((Z, H, D, N_CTX)).astype(np.float16)).transpose(0, 1, 3, 2)
    o_store = np.zeros((Z, H, N_CTX, D + 8), np.float16)
    o = o_store[..., :D]
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "sm_scale": "fp32"}
    strides = {}
    for name, x in (("q", q), ("k", k), ("v", v), ("o", o)):
        st = [s // x.itemsize for s in x.strides]
        for d, s in zip(("z", "h", "n" if name in "kv" else "m", "k"), st):
            strides[f"stride_{name}{d}"] = s
            sig[f"stride_{name}{d}"] = "i32"
    sig.update(H="i32", N_CTX="i32")
    run(VERSIONS / version / "attention_block_ptr_f16_d32_64x32.ttir", "attention_block_ptr_kernel",
        (N_CTX // 64, Z * H), sig, Q=q, K=k, V=v, O=o, sm_scale=0.3, **strides, H=H, N_CTX=N_CTX)
    close(o, attention_reference(q, k, v, 0.3, False))
    assert not o_store[..., D:].any()  # the padding columns are not written


@pytest.mark.parametrize("version", VERSION_DIRS)
def test_block_pointer_boundary_checks(rng, version):
    """Loads checked on both dims (zero padding past M and K), the store on the rows only."""
    M, K = 40, 80  # neither divides the 16 x 32 block
    a_store = rng.standard_normal((M, K + 3)).astype(np.float16)  # a row stride of K + 3
    a = a_store[:, :K]
    b = np.full((M + 8, 32), 5, np.float32)  # rows past M must stay 5
    run(LOCAL / f"block_pointer_rowsum_{version}.ttir", "block_pointer_rowsum", 3,
        {"A": "*fp16", "B": "*fp32", "M": "i32", "K": "i32", "stride_am": "i32"},
        A=a, B=b, M=M, K=K, stride_am=K + 3)
    padded = np.zeros((M, 96), np.float32)
    padded[:, :K] = a
    np.testing.assert_allclose(b[:M], padded.reshape(M, 3, 32).sum(axis=1), rtol=1e-5, atol=1e-5)
    assert (b[M:] == 5).all()


@pytest.mark.parametrize("version,hopper", [("v3.4", False), ("v3.6", True), ("v3.9", False)])
def test_i64_offset_epilogue(rng, version, hopper):
    """A descriptor GEMM whose bias load and C store take i64 offset tiles, interpreted as imported
    and (for the GPU machine's Triton 3.6) after ws-hopper, which warp-specializes it: the same C."""
    from wsdialects.context import make_context

    M, N, K = 150, 136, 80  # 2 x 2 tiles of 128, both ragged; C rows padded to N + 8
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    bias = rng.standard_normal(N).astype(np.float16)
    sig = {"a_desc": "tensordesc<fp16>", "b_desc": "tensordesc<fp16>", "bias_ptr": "*fp16", "c_ptr": "*fp16",
           "M": "i32", "N": "i32", "K": "i32", "stride_cm": "i32"}
    results = []
    for passes in ([], ["ws-hopper"] if hopper else []):
        module = load(LOCAL / f"gemm_epilogue_i64_{version}.ttir")
        for name in passes:
            wsdialects.available_passes()[name]()().apply(make_context(), module)
        if passes:  # warp-specialized, the i64 epilogue in the consumer
            assert any(o.name == "nvgpu.wg.branch" for o in module.walk())
        c_store = np.full((M, N + 8), 7, np.float16)
        args = expand(dict(a_desc=Desc(a, [128, 64]), b_desc=Desc(b, [128, 64]), bias_ptr=bias,
                           c_ptr=c_store[:, :N], M=M, N=N, K=K, stride_cm=N + 8), sig, "gemm_epilogue_i64")
        wsdialects.interpret(module, "gemm_epilogue_i64", (2, 2), args)
        close(c_store[:, :N], a.astype(np.float32) @ b.astype(np.float32).T + bias.astype(np.float32))
        assert (c_store[:, N:] == 7).all()
        results.append(c_store)
    assert all(np.array_equal(results[0], r) for r in results)
