"""C = A @ B^T through host-side tensor descriptors (A: M x K, B: N x K, C: M x N).

The host builds one `TensorDescriptor` per operand (its block is the tile the kernel
loads or stores); the kernel addresses tiles by their element offsets. The launch helper
runs any kernel object that launches like a Triton kernel: the @triton.jit function itself
or `wsdialects.compile(gemm_desc_kernel)`.
"""

import triton
import triton.language as tl


@triton.jit
def gemm_desc_kernel(a_desc, b_desc, c_desc, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


def gemm_desc(a, b, kernel=gemm_desc_kernel, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8):
    """C (a's dtype) = a @ b.T for torch CUDA tensors a (M x K) and b (N x K)."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    kernel[grid](a_desc, b_desc, c_desc, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                 num_warps=num_warps)
    return c


# The checked-in TTIR (test/Inputs/triton/, tools/regen_ttir.py): name -> (kernel, signature, constexprs, num_warps)
TTIR = {
    "gemm_desc_f16_128x256x64": (gemm_desc_kernel, {
        "a_desc": "tensordesc<fp16[128,64]>", "b_desc": "tensordesc<fp16[256,64]>",
        "c_desc": "tensordesc<fp16[128,256]>", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, 8),
    "gemm_desc_bf16_64x64x32": (gemm_desc_kernel, {
        "a_desc": "tensordesc<bf16[64,32]>", "b_desc": "tensordesc<bf16[64,32]>",
        "c_desc": "tensordesc<bf16[64,64]>", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, 4),
}
