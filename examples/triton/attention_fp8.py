"""FP8 attention forward (e4m3 Q, K, V; per-head descales; O bf16), written the way a Triton
user writes it from the fused-attention tutorial: device-side tensor descriptors, an online
softmax in base 2, `tl.dot(p.to(v.dtype), v)` with v in e4m3 (V as stored, [keys, head dim]),
the q and k descales folded into the softmax scale and v's into the final 1 / l. Causal
attention runs the tutorial's two loops (the blocks left of the diagonal, then the diagonal
blocks masked).

Q, K, V are (Z, H, N_CTX, HEAD_DIM) e4m3, O the same shape in bf16, contiguous, addressed as
(Z * H * N_CTX) x HEAD_DIM; QD, KD, VD hold one f32 descale per (z, h). Compiled by us, fp8
wgmma's K-major operands are the compiler's business: ws-stage-operands transposes each V
tile in shared memory and ws-lower-layouts converts P into wgmma's 8-bit A fragment.
"""

import triton
import triton.language as tl


@triton.jit
def _attn_fp8_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m, offs_n,
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
def attention_fp8_kernel(Q, K, V, O, QD, KD, VD, sm_scale, Z, H, N_CTX: tl.constexpr, HEAD_DIM: tl.constexpr,
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
    q_descale = tl.load(QD + off_hz)
    k_descale = tl.load(KD + off_hz)
    v_descale = tl.load(VD + off_hz)
    qk_scale = sm_scale * 1.44269504 * q_descale * k_descale  # 1 / ln(2), and the dequantization
    q = q_desc.load([qo_offset_y, 0])
    if CAUSAL:
        acc, l_i, m_i = _attn_fp8_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m,
                                        offs_n, BLOCK_M, BLOCK_N, 1, N_CTX)
        acc, l_i, m_i = _attn_fp8_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m,
                                        offs_n, BLOCK_M, BLOCK_N, 2, N_CTX)
    else:
        acc, l_i, m_i = _attn_fp8_inner(acc, l_i, m_i, q, k_desc, v_desc, offset_y, start_m, qk_scale, offs_m,
                                        offs_n, BLOCK_M, BLOCK_N, 3, N_CTX)
    acc = acc * (v_descale / l_i)[:, None]
    o_desc.store([qo_offset_y, 0], acc.to(O.dtype.element_ty))


def attention_fp8(q, k, v, q_descale, k_descale, v_descale, causal, sm_scale, kernel=attention_fp8_kernel,
                  BLOCK_M=128, BLOCK_N=128, num_warps=8):
    """softmax(q k^T sm_scale) v, dequantized, for contiguous (Z, H, N_CTX, HEAD_DIM) e4m3 torch
    CUDA tensors and (Z, H) f32 descales (N_CTX a multiple of BLOCK_M and BLOCK_N); O bf16."""
    import torch

    Z, H, n_ctx, head_dim = q.shape
    o = torch.empty(q.shape, device=q.device, dtype=torch.bfloat16)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=q.device))
    grid = lambda META: (triton.cdiv(n_ctx, META["BLOCK_M"]), Z * H)  # noqa: E731
    kernel[grid](q, k, v, o, q_descale, k_descale, v_descale, sm_scale, Z, H, N_CTX=n_ctx, HEAD_DIM=head_dim,
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=causal, num_warps=num_warps)
    return o


def _entry(n_ctx, head_dim, block_m, block_n, causal, num_warps):
    sig = {"Q": "*fp8e4nv", "K": "*fp8e4nv", "V": "*fp8e4nv", "O": "*bf16", "QD": "*fp32", "KD": "*fp32",
           "VD": "*fp32", "sm_scale": "fp32", "Z": "i32", "H": "i32"}
    return (attention_fp8_kernel, sig, {"N_CTX": n_ctx, "HEAD_DIM": head_dim, "BLOCK_M": block_m,
                                        "BLOCK_N": block_n, "CAUSAL": causal}, num_warps)


TTIR = {
    "attention_fp8_e4m3_d128_n1024": _entry(1024, 128, 128, 128, False, 8),
    "attention_fp8_causal_e4m3_d128_n1024": _entry(1024, 128, 128, 128, True, 8),
    "attention_fp8_e4m3_d128_n256": _entry(256, 128, 128, 128, False, 8),
}
