"""A GEMM whose epilogue regroups tiles: S = A @ B^T (A: M x K, B: N x K through host
descriptors), then C[m, n] = (S[m, n], S[m, n] - max_n' S[m, n']) as an interleaved pair
(C: M x N x 2 floats through pointers). The row maxima are reshaped to a column
(`tl.reshape(.., (BLOCK_M, 1))`) and the pair made with `tl.join`, the way Triton users
write such epilogues; one tile of columns holds a whole row (N <= BLOCK_N).
"""

import triton
import triton.language as tl


@triton.jit
def gemm_join_kernel(a_desc, b_desc, c_ptr, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([0, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    masked = tl.where((offs_n < N)[None, :], acc, float("-inf"))
    row_max = tl.reshape(tl.max(masked, axis=1), (BLOCK_M, 1))
    pair = tl.join(acc, acc - row_max)
    offs_h = tl.arange(0, 2)
    ptrs = c_ptr + offs_m[:, None, None] * (2 * N) + offs_n[None, :, None] * 2 + offs_h[None, None, :]
    mask = (offs_m[:, None, None] < M) & (offs_n[None, :, None] < N)
    tl.store(ptrs, pair, mask=mask)


def gemm_join(a, b, kernel=gemm_join_kernel, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8):
    """(a @ b.T, a @ b.T - its row maxima) interleaved, M x N x 2 float32, for torch CUDA
    tensors a (M x K) and b (N x K), N <= BLOCK_N."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    N = b.shape[0]
    assert N <= BLOCK_N, "one tile of columns holds a whole row"
    c = torch.empty((M, N, 2), dtype=torch.float32, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
    grid = (triton.cdiv(M, BLOCK_M),)
    kernel[grid](a_desc, b_desc, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                 num_warps=num_warps)
    return c


def _sig(block_m, block_n, block_k):
    return {"a_desc": f"tensordesc<fp16[{block_m},{block_k}]>", "b_desc": f"tensordesc<fp16[{block_n},{block_k}]>",
            "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}


TTIR = {
    "gemm_join_f16_128x128x64": (gemm_join_kernel, _sig(128, 128, 64),
                                 {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, 8),
}
