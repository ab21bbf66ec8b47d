"""The Triton example kernels (examples/triton/), imported from their checked-in TTIR
(test/Inputs/triton/, tools/regen_ttir.py) and interpreted on random inputs against numpy.
No triton needed: the arguments are expanded as the TTIR signature has them
(wsdialects.triton.launch.expand, the launch path's own expansion) from a signature
written here; test_triton_frontend.py runs the same kernels from their @triton.jit source.

Shapes are small and ragged (not multiples of the tiles), so the descriptor bounds, the K
masks and the store masks all matter.
"""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from wsdialects.triton.launch import expand
from references import attention_reference

INPUTS = Path(__file__).resolve().parents[1] / "Inputs" / "triton"
BF16, F8 = ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn


class Desc:
    """What a host TensorDescriptor carries (base, shape, strides, block shape)."""

    def __init__(self, base, block):
        self.base, self.block_shape = base, block
        self.shape, self.strides = base.shape, tuple(s // base.itemsize for s in base.strides)


def load(name: str):
    path = INPUTS / f"{name}.ttir"
    return wsdialects.parse_file(str(path))


def run(name, kernel, grid, signature: dict, **bound):
    args = expand(bound, signature, kernel)
    wsdialects.interpret(load(name), kernel, grid, args)


def close(got, want, tol=2e-2):
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=tol, atol=tol)


def cdiv(a, b):
    return -(-a // b)


def _desc_sig(**descs):
    return {k: f"tensordesc<{v}>" for k, v in descs.items()}


def test_gemm_desc(rng):
    M, N, K = 96, 80, 80
    a = rng.standard_normal((M, K)).astype(BF16)
    b = rng.standard_normal((N, K)).astype(BF16)
    c = np.zeros((M, N), BF16)
    sig = {**_desc_sig(a_desc="bf16", b_desc="bf16", c_desc="bf16"), "M": "i32", "N": "i32", "K": "i32",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
    run("gemm_desc_bf16_64x64x32", "gemm_desc_kernel", cdiv(M, 64) * cdiv(N, 64), sig,
        a_desc=Desc(a, [64, 32]), b_desc=Desc(b, [64, 32]), c_desc=Desc(c, [64, 64]), M=M, N=N, K=K,
        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    close(c, a.astype(np.float32) @ b.astype(np.float32).T)


def test_gemm_pointer_grouped_with_k_tail_and_strided_b(rng):
    """GROUP_M = 2 over a 3 x 2 tile grid, K = 72 (a masked tail of 8), B a transposed view."""
    M, N, K = 130, 96, 72
    a = rng.standard_normal((M, K)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)
    b = bt.T  # K x N, strides (1, K): addressed through its own strides, not flat
    c = np.zeros((M, N), np.float16)
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", **{n: "i32" for n in (
        "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")}}
    run("gemm_pointer_f16_64x64x32_g2", "gemm_pointer_kernel", cdiv(M, 64) * cdiv(N, 64), sig,
        a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K, stride_am=K, stride_ak=1, stride_bk=1, stride_bn=K,
        stride_cm=N, stride_cn=1)
    close(c, a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize("activation", ["silu"])
def test_gemm_epilogue(rng, activation):
    M, N, K = 70, 72, 64
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    bias = rng.standard_normal(N).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    sig = {**_desc_sig(a_desc="fp16", b_desc="fp16"), "bias_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
           "N": "i32", "K": "i32", "stride_cm": "i32"}
    run("gemm_epilogue_silu_f16_64x64x32", "gemm_epilogue_kernel", (cdiv(M, 64), cdiv(N, 64)), sig,
        a_desc=Desc(a, [64, 32]), b_desc=Desc(b, [64, 32]), bias_ptr=bias, c_ptr=c, M=M, N=N, K=K, stride_cm=N)
    x = a.astype(np.float32) @ b.astype(np.float32).T + bias.astype(np.float32)
    close(c, x / (1 + np.exp(-x)))


def test_gemm_fp8(rng):
    M, N, K = 64, 128, 128
    a = rng.standard_normal((M, K)).astype(F8)
    b = rng.standard_normal((N, K)).astype(F8)
    c = np.zeros((M, N), np.float16)
    sig = {**_desc_sig(a_desc="fp8e4nv", b_desc="fp8e4nv", c_desc="fp16"), "M": "i32", "N": "i32", "K": "i32",
           "scale": "fp32"}
    run("gemm_fp8_e4m3_64x64x64", "gemm_fp8_kernel", cdiv(M, 64) * cdiv(N, 64), sig,
        a_desc=Desc(a, [64, 64]), b_desc=Desc(b, [64, 64]), c_desc=Desc(c, [64, 64]), M=M, N=N, K=K, scale=0.5)
    close(c, 0.5 * (a.astype(np.float32) @ b.astype(np.float32).T), tol=5e-2)


def test_gemm_persistent(rng):
    """6 tiles over 3 programs (NUM_SMS = 3): each program takes every third tile."""
    M, N, K = 128, 150, 64
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    sig = {**_desc_sig(a_desc="fp16", b_desc="fp16", c_desc="fp16"), "M": "i32", "N": "i32", "K": "i32"}
    run("gemm_persistent_f16_64x64x32_sms3", "gemm_persistent_kernel", 3, sig,
        a_desc=Desc(a, [64, 32]), b_desc=Desc(b, [64, 32]), c_desc=Desc(c, [64, 64]), M=M, N=N, K=K)
    close(c, a.astype(np.float32) @ b.astype(np.float32).T)


@pytest.mark.parametrize("name,dtype,causal", [("attention_desc_f16_d32_n128", np.float16, False),
                                               ("attention_desc_causal_bf16_d32_n128", BF16, True)])
def test_attention_desc(rng, name, dtype, causal):
    Z, H, N_CTX, D = 1, 2, 128, 32
    q, k, v = (rng.standard_normal((Z, H, N_CTX, D)).astype(dtype) for _ in range(3))
    o = np.zeros_like(q)
    t = "fp16" if dtype == np.float16 else "bf16"
    sig = {"Q": f"*{t}", "K": f"*{t}", "V": f"*{t}", "O": f"*{t}", "sm_scale": "fp32", "Z": "i32", "H": "i32"}
    run(name, "attention_desc_kernel", (N_CTX // 64, Z * H), sig, Q=q, K=k, V=v, O=o, sm_scale=0.3, Z=Z, H=H)
    close(o, attention_reference(q, k, v, 0.3, causal))


def test_every_entry_point_reads_ttir():
    """parse, parse_file and compile (a path or the text) all import TTIR, as ws-opt does."""
    path = INPUTS / "gemm_desc_bf16_64x64x32.ttir"
    text = path.read_text()
    printed = str(load("gemm_desc_bf16_64x64x32"))
    assert str(wsdialects.parse(text, str(path))) == printed and "tile.desc_load" in printed
    by_path = wsdialects.compile(str(path), pipeline="ws-specialize")
    assert "warp_group.region" in by_path.ir and by_path.ir == wsdialects.compile(text, pipeline="ws-specialize").ir
