"""An fp8 GEMM: C (fp16) = scale * (A @ B^T) with A (M x K) and B (N x K) in float8 e4m3,
accumulated in fp32, every operand through host descriptors. `scale` (a float argument)
folds the two per-tensor dequantization scales.
"""

import triton
import triton.language as tl


@triton.jit
def gemm_fp8_kernel(a_desc, b_desc, c_desc, M, N, K, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    off_m = (pid % num_pid_m) * BLOCK_M
    off_n = (pid // num_pid_m) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], (acc * scale).to(tl.float16))


def gemm_fp8(a, b, scale=1.0, kernel=gemm_fp8_kernel, BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, num_warps=8):
    """scale * a @ b.T (fp16) for float8_e4m3fn torch CUDA tensors a (M x K) and b (N x K)."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    kernel[grid](a_desc, b_desc, c_desc, M, N, K, scale, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                 num_warps=num_warps)
    return c


TTIR = {
    "gemm_fp8_e4m3_128x256x128": (gemm_fp8_kernel, {
        "a_desc": "tensordesc<fp8e4nv[128,128]>", "b_desc": "tensordesc<fp8e4nv[256,128]>",
        "c_desc": "tensordesc<fp16[128,256]>", "M": "i32", "N": "i32", "K": "i32", "scale": "fp32"},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128}, 8),
    "gemm_fp8_e4m3_64x64x64": (gemm_fp8_kernel, {
        "a_desc": "tensordesc<fp8e4nv[64,64]>", "b_desc": "tensordesc<fp8e4nv[64,64]>",
        "c_desc": "tensordesc<fp16[64,64]>", "M": "i32", "N": "i32", "K": "i32", "scale": "fp32"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, 4),
}
