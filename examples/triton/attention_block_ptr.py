"""Attention forward (not causal) with block pointers (`tl.make_block_ptr` / `tl.advance`),
the way Triton's fused-attention tutorial wrote its non-TMA path: Q, K, V, O are
(Z, H, N_CTX, HEAD_DIM) with arbitrary strides; K is read transposed through a block
pointer with order (0, 1).

Triton 3.9 removed block pointers ("Block pointers have been removed in favor of the tensor
descriptor API"); this kernel compiles with Triton 3.4 to 3.8, and its TTIR is regenerated
only there (TTIR_TRITON below).
"""

import triton
import triton.language as tl


@triton.jit
def attention_block_ptr_kernel(Q, K, V, O, sm_scale, stride_qz, stride_qh, stride_qm, stride_qk, stride_kz,
                               stride_kh, stride_kn, stride_kk, stride_vz, stride_vh, stride_vn, stride_vk,
                               stride_oz, stride_oh, stride_om, stride_ok, H, N_CTX,
                               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_off = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_off = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_off = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_off = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh
    q_ptr = tl.make_block_ptr(base=Q + q_off, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                              offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    kt_ptr = tl.make_block_ptr(base=K + k_off, shape=(HEAD_DIM, N_CTX), strides=(stride_kk, stride_kn),
                               offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    v_ptr = tl.make_block_ptr(base=V + v_off, shape=(N_CTX, HEAD_DIM), strides=(stride_vn, stride_vk),
                              offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    o_ptr = tl.make_block_ptr(base=O + o_off, shape=(N_CTX, HEAD_DIM), strides=(stride_om, stride_ok),
                              offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_ptr)
    for start_n in range(0, N_CTX, BLOCK_N):
        k = tl.load(kt_ptr)
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        kt_ptr = tl.advance(kt_ptr, (0, BLOCK_N))
        v_ptr = tl.advance(v_ptr, (BLOCK_N, 0))
    acc = acc / l_i[:, None]
    tl.store(o_ptr, acc.to(O.dtype.element_ty))


def attention_block_ptr(q, k, v, sm_scale, kernel=attention_block_ptr_kernel, BLOCK_M=128, BLOCK_N=64,
                        num_warps=8):
    """softmax(q k^T sm_scale) v for (Z, H, N_CTX, HEAD_DIM) torch CUDA tensors (N_CTX a multiple of
    BLOCK_M and BLOCK_N)."""
    import torch

    Z, H, n_ctx, head_dim = q.shape
    o = torch.empty_like(q)
    grid = lambda META: (triton.cdiv(n_ctx, META["BLOCK_M"]), Z * H)  # noqa: E731
    kernel[grid](q, k, v, o, sm_scale, *q.stride(), *k.stride(), *v.stride(), *o.stride(), H, n_ctx,
                 HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    return o


def _entry(dtype, head_dim, block_m, block_n, num_warps):
    sig = {"Q": f"*{dtype}", "K": f"*{dtype}", "V": f"*{dtype}", "O": f"*{dtype}", "sm_scale": "fp32"}
    for t in "qkvo":
        for d in ("z", "h", "n" if t in "kv" else "m", "k"):
            sig[f"stride_{t}{d}"] = "i32"
    sig["H"] = "i32"
    sig["N_CTX"] = "i32"
    return (attention_block_ptr_kernel, sig, {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n},
            num_warps)


TTIR_TRITON = "<3.9"  # the Triton versions that compile this module's kernels
TTIR = {
    "attention_block_ptr_f16_d128_128x64": _entry("fp16", 128, 128, 64, 8),
    "attention_block_ptr_f16_d32_64x32": _entry("fp16", 32, 64, 32, 4),
}
