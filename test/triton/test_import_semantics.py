"""The TTIR import keeps the kernel's meaning: each checked-in TTIR (test/Inputs/ttir/, printed
by Triton 3.9 from the Python kernels named in its locations) is imported into the tile
dialect and interpreted on random inputs against numpy."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wsdialects
from wsdialects.triton import import_ttir
from references import attention_reference

TTIR = Path(__file__).resolve().parent.parent / "Inputs" / "ttir"


def _import(name: str):
    return import_ttir((TTIR / name).read_text(), name)


def _f16(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16)


def test_descriptor_gemm():
    rng = np.random.default_rng(0)
    M, N, K = 128, 256, 192  # one 128x256 tile, three K steps of 64
    a, b = _f16(rng, M, K), _f16(rng, N, K)
    c = np.zeros((M, N), np.float16)
    # Triton's signature: each host descriptor is followed by its shape (i32) and strides (i64)
    args = [a, M, K, K, 1, b, N, K, K, 1, c, M, N, K, N]
    wsdialects.interpret(_import("desc_gemm.ttir"), "matmul", (1, 1), args)
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-2, atol=2e-2)


def test_pointer_gemm_with_masks():
    rng = np.random.default_rng(1)
    M, N, K = 96, 128, 48  # M and K cut the 64x64x32 tiles: masked loads with other=0, masked store
    a, b = _f16(rng, M, K), _f16(rng, K, N)
    c = np.full((M, N), 7, np.float16)
    wsdialects.interpret(_import("ptr_gemm.ttir"), "ptr_gemm", (2, 2), [a, b, c, M, N, K, K, N, N])
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("kind", ["host_desc", "device_desc"])
def test_attention_forward(kind):
    rng = np.random.default_rng(2)
    heads, n_ctx, d = 2, 128, 64
    q, k, v = (_f16(rng, heads * n_ctx, d) for _ in range(3))
    o = np.zeros((heads * n_ctx, d), np.float16)
    scale = 0.125
    m = _import(f"attention_{kind}.ttir")
    if kind == "host_desc":
        rows = heads * n_ctx
        descs = [x for arr in (q, k, v, o) for x in (arr, rows, d, d, 1)]
        wsdialects.interpret(m, "attn_fwd", (1, heads), [*descs, scale, n_ctx])
    else:
        wsdialects.interpret(m, "attn", (1, heads), [q, k, v, o, scale, 1, heads, n_ctx])
    for h in range(heads):
        sl = slice(h * n_ctx, (h + 1) * n_ctx)
        ref = attention_reference(q[sl], k[sl], v[sl], scale)
        np.testing.assert_allclose(o[sl].astype(np.float32), ref, rtol=2e-2, atol=2e-2)


def test_reshape_split_join_reduce_atomics():
    rng = np.random.default_rng(3)
    n, block = 100, 64
    x = rng.standard_normal(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    z = rng.standard_normal(n).astype(np.float32)
    z0 = z.copy()
    wsdialects.interpret(_import("regroup_atomic.ttir"), "misc", 2, [x, y, z, n])
    want_y, want_z = np.zeros(n, np.float32), z0.astype(np.float64)
    for pid in range(2):
        offs = pid * block + np.arange(block)
        live = offs < n
        xs = np.where(live, x[np.minimum(offs, n - 1)], 1.0).astype(np.float32)
        xb = xs.astype(ml_dtypes.float8_e4m3fn).astype(np.float32)  # tt.fp_to_fp there and back
        pairs = xb.reshape(block // 2, 2)
        r = np.stack([pairs[:, 1], pairs[:, 0]], axis=-1).reshape(block)  # join(hi, lo)
        want_y[offs[live]] = (r + r.min() + 2)[live]  # + tl.num_programs(0)
        want_z[pid] += r.sum()
        want_z[offs[live]] += r[live]
    np.testing.assert_allclose(y, want_y, rtol=1e-6)
    np.testing.assert_allclose(z, want_z, rtol=1e-5, atol=1e-5)


def test_block_pointers():
    """test/triton/block-pointers.mlir (Triton 3.4-3.8 syntax): B[rows] = the sum of A's 16x32
    blocks along K, read with boundary checks (zero padding) and stored with a row check."""
    rng = np.random.default_rng(4)
    M, K = 40, 80  # neither divides the 16x32 block
    a = _f16(rng, M, K)
    b = np.full((M, 32), 5, np.float32)
    text = (Path(__file__).resolve().parent / "block-pointers.mlir").read_text()
    wsdialects.interpret(import_ttir(text, "block-pointers.mlir"), "rowsum", 3, [a, b, M, K])
    padded = np.zeros((M, 96), np.float32)
    padded[:, :K] = a
    np.testing.assert_allclose(b, padded.reshape(M, 3, 32).sum(axis=1), rtol=1e-5, atol=1e-5)
