"""C = act(A @ B^T + bias): a GEMM with its epilogue fused (A: M x K and B: N x K through
host descriptors, bias: N floats through a pointer, C written through pointers with a
bounds mask). ACTIVATION is a constexpr: "relu", "silu" or "" (none).
"""

import triton
import triton.language as tl


@triton.jit
def gemm_epilogue_kernel(a_desc, b_desc, bias_ptr, c_ptr, M, N, K, stride_cm,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         ACTIVATION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    acc = acc + bias[None, :].to(tl.float32)
    if ACTIVATION == "relu":
        acc = tl.maximum(acc, 0.0)
    elif ACTIVATION == "silu":
        acc = acc / (1.0 + tl.exp(-acc))
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)


def gemm_epilogue(a, b, bias, activation="relu", kernel=gemm_epilogue_kernel, BLOCK_M=128, BLOCK_N=128,
                  BLOCK_K=64, num_warps=8):
    """act(a @ b.T + bias) (a's dtype) for torch CUDA tensors a (M x K), b (N x K), bias (N)."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))  # noqa: E731
    kernel[grid](a_desc, b_desc, bias, c, M, N, K, c.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                 BLOCK_K=BLOCK_K, ACTIVATION=activation, num_warps=num_warps)
    return c


def _sig(block_m, block_n, block_k):
    return {"a_desc": f"tensordesc<fp16[{block_m},{block_k}]>", "b_desc": f"tensordesc<fp16[{block_n},{block_k}]>",
            "bias_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32", "stride_cm": "i32"}


TTIR = {
    "gemm_epilogue_relu_f16_128x128x64": (gemm_epilogue_kernel, _sig(128, 128, 64),
                                          {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "ACTIVATION": "relu"}, 8),
    "gemm_epilogue_silu_f16_64x64x32": (gemm_epilogue_kernel, _sig(64, 64, 32),
                                        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "ACTIVATION": "silu"}, 4),
}
