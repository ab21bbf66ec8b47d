"""Split-K GEMM through tensor descriptors, C += A @ B^T (A: M x K, B: N x K, C: M x N f32):
one program per (C tile, K slice) loads its slice with TMA and adds its partial tile into C
with `c_desc.atomic_add` (TTIR `tt.descriptor_reduce add`, the tile dialect's
`tile.desc_store add`, on Hopper a TMA reduce-add), so the slices of one tile meet in memory
and the last row and column tiles are clipped by TMA. C must start zeroed for a plain product
(the wrapper does that).
"""

import triton
import triton.language as tl


@triton.jit
def gemm_splitk_desc_kernel(a_desc, b_desc, c_desc, M, N, K,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    k_tiles = tl.cdiv(tl.cdiv(K, BLOCK_K), SPLIT_K)  # K tiles per slice
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(pid_k * k_tiles, tl.minimum((pid_k + 1) * k_tiles, tl.cdiv(K, BLOCK_K))):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.atomic_add([off_m, off_n], acc)


def gemm_splitk_desc(a, b, kernel=gemm_splitk_desc_kernel, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, SPLIT_K=4,
                     num_warps=8):
    """a @ b.T in f32 for torch CUDA tensors a (M x K) and b (N x K)."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    N = b.shape[0]
    c = torch.zeros((M, N), dtype=torch.float32, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]),  # noqa: E731
                         META["SPLIT_K"])
    kernel[grid](a_desc, b_desc, c_desc, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                 SPLIT_K=SPLIT_K, num_warps=num_warps)
    return c


# The checked-in TTIR (test/Inputs/triton/, tools/regen_ttir.py): name -> (kernel, signature, constexprs, num_warps)
TTIR = {
    "gemm_splitk_desc_f16_128x128x64_s4": (gemm_splitk_desc_kernel, {
        "a_desc": "tensordesc<fp16[128,64]>", "b_desc": "tensordesc<fp16[128,64]>",
        "c_desc": "tensordesc<fp32[128,128]>", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": 4}, 8),
    "gemm_splitk_desc_bf16_64x64x32_s3": (gemm_splitk_desc_kernel, {
        "a_desc": "tensordesc<bf16[64,32]>", "b_desc": "tensordesc<bf16[64,32]>",
        "c_desc": "tensordesc<fp32[64,64]>", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 3}, 4),
}
