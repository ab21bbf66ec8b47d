"""Split-K GEMM, C += A @ B: the K dimension is cut into SPLIT_K slices, one program per
(C tile, K slice); each computes its slice's partial tile with pointer loads (masked at M, N
and K) and adds it into an f32 C with `tl.atomic_add`, so the slices of one tile meet in
memory. Worth it where M x N has too few tiles to fill the GPU and K is long. C must start
zeroed (the wrapper does that).

Also here, a reduction with atomics and no dot: `row_sum_splitn_kernel` sums each row of an
M x N matrix, the columns cut into SPLIT_N slices whose partial row sums are atomically
added into `out` (M floats).
"""

import triton
import triton.language as tl


@triton.jit
def gemm_splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                       stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    k_tiles = tl.cdiv(tl.cdiv(K, BLOCK_K), SPLIT_K)  # K tiles per slice
    k_start = pid_k * k_tiles * BLOCK_K
    k_end = tl.minimum(k_start + k_tiles * BLOCK_K, K)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_start, k_end, BLOCK_K):
        offs_k = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + (offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak),
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn),
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + (offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn)
    tl.atomic_add(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def row_sum_splitn_kernel(x_ptr, out_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          SPLIT_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    n_tiles = tl.cdiv(tl.cdiv(N, BLOCK_N), SPLIT_N)  # column tiles per slice
    n_start = pid_n * n_tiles * BLOCK_N
    n_end = tl.minimum(n_start + n_tiles * BLOCK_N, N)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for n in range(n_start, n_end, BLOCK_N):
        offs_n = n + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + (offs_m[:, None] * stride_xm + offs_n[None, :]),
                    mask=(offs_m[:, None] < M) & (offs_n[None, :] < N), other=0.0)
        acc += x.to(tl.float32)
    tl.atomic_add(out_ptr + offs_m, tl.sum(acc, axis=1), mask=offs_m < M)


def gemm_splitk(a, b, kernel=gemm_splitk_kernel, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, SPLIT_K=4, num_warps=8):
    """a @ b in f32 for torch CUDA tensors a (M x K) and b (K x N)."""
    import torch

    M, K = a.shape
    N = b.shape[1]
    c = torch.zeros((M, N), dtype=torch.float32, device=a.device)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]),  # noqa: E731
                         META["SPLIT_K"])
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, SPLIT_K=SPLIT_K, num_warps=num_warps)
    return c


def row_sum_splitn(x, kernel=row_sum_splitn_kernel, BLOCK_M=128, BLOCK_N=64, SPLIT_N=4, num_warps=4):
    """x.sum(1) in f32 for a torch CUDA tensor x (M x N, rows contiguous)."""
    import torch

    M, N = x.shape
    out = torch.zeros((M,), dtype=torch.float32, device=x.device)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), META["SPLIT_N"])  # noqa: E731
    kernel[grid](x, out, M, N, x.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, SPLIT_N=SPLIT_N, num_warps=num_warps)
    return out


_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32", "stride_cm": "i32",
        "stride_cn": "i32"}
_ROW_SIG = {"x_ptr": "*fp16", "out_ptr": "*fp32", "M": "i32", "N": "i32", "stride_xm": "i32"}
TTIR = {
    "gemm_splitk_f16_128x128x64_s4": (gemm_splitk_kernel, _SIG,
                                      {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": 4}, 8),
    "gemm_splitk_f16_64x64x32_s3": (gemm_splitk_kernel, _SIG,
                                    {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 3}, 4),
    "row_sum_splitn_f16_128x64_s4": (row_sum_splitn_kernel, _ROW_SIG,
                                     {"BLOCK_M": 128, "BLOCK_N": 64, "SPLIT_N": 4}, 4),
}
