"""Attention forward (softmax(Q K^T * sm_scale) V) with device-side tensor descriptors
(`tl.make_tensor_descriptor`), the algorithm of Triton's fused-attention tutorial: each
program owns BLOCK_M query rows of one (batch, head); an online softmax in base 2 runs over
the K / V blocks. Causal attention runs two loops: the blocks left of the diagonal
unmasked, then the diagonal blocks with the causal mask.

Q, K, V, O are (Z, H, N_CTX, HEAD_DIM), contiguous, addressed as (Z * H * N_CTX) x HEAD_DIM.
Device-side descriptors need a global scratch allocator for Triton's own launch
(`triton.set_allocator`); the launch helper installs one.
"""

import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m, offs_n,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr, N_CTX: tl.constexpr):
    if STAGE == 1:  # causal, left of the diagonal
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:  # causal, the diagonal blocks
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:  # not causal: every block
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        k = k_desc.load([offset_y + start_n, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            keep = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(keep, 0.0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([offset_y + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attention_desc_kernel(Q, K, V, O, sm_scale, Z, H, N_CTX: tl.constexpr, HEAD_DIM: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    y_dim = Z * H * N_CTX
    q_desc = tl.make_tensor_descriptor(Q, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(O, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    offset_y = off_hz * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1 / ln(2): exp(x) = exp2(x / ln 2)
    q = q_desc.load([qo_offset_y, 0])
    if CAUSAL:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m,
                                        offs_n, BLOCK_M, BLOCK_N, 1, N_CTX)
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m,
                                        offs_n, BLOCK_M, BLOCK_N, 2, N_CTX)
    else:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m,
                                        offs_n, BLOCK_M, BLOCK_N, 3, N_CTX)
    acc = acc / l_i[:, None]
    o_desc.store([qo_offset_y, 0], acc.to(q.dtype))


def attention_desc(q, k, v, causal, sm_scale, kernel=attention_desc_kernel, BLOCK_M=128, BLOCK_N=128,
                   num_warps=8):
    """softmax(q k^T sm_scale) v for contiguous (Z, H, N_CTX, HEAD_DIM) torch CUDA tensors
    (N_CTX a multiple of BLOCK_M and BLOCK_N)."""
    import torch

    Z, H, n_ctx, head_dim = q.shape
    o = torch.empty_like(q)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=q.device))
    grid = lambda META: (triton.cdiv(n_ctx, META["BLOCK_M"]), Z * H)  # noqa: E731
    kernel[grid](q, k, v, o, sm_scale, Z, H, N_CTX=n_ctx, HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                 CAUSAL=causal, num_warps=num_warps)
    return o


def _entry(dtype, n_ctx, head_dim, block_m, block_n, causal, num_warps):
    sig = {"Q": f"*{dtype}", "K": f"*{dtype}", "V": f"*{dtype}", "O": f"*{dtype}", "sm_scale": "fp32", "Z": "i32",
           "H": "i32"}
    return (attention_desc_kernel, sig, {"N_CTX": n_ctx, "HEAD_DIM": head_dim, "BLOCK_M": block_m,
                                         "BLOCK_N": block_n, "CAUSAL": causal}, num_warps)


TTIR = {
    "attention_desc_f16_d128_n1024": _entry("fp16", 1024, 128, 128, 128, False, 8),
    "attention_desc_causal_f16_d128_n1024": _entry("fp16", 1024, 128, 128, 128, True, 8),
    "attention_desc_bf16_d128_n1024": _entry("bf16", 1024, 128, 128, 128, False, 8),
    "attention_desc_causal_bf16_d128_n1024": _entry("bf16", 1024, 128, 128, 128, True, 8),
    "attention_desc_f16_d32_n128": _entry("fp16", 128, 32, 64, 32, False, 4),
    "attention_desc_causal_bf16_d32_n128": _entry("bf16", 128, 32, 64, 32, True, 4),
}
