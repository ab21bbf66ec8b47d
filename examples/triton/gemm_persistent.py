"""A persistent GEMM: NUM_SMS programs walk the output tiles (`tl.range(start, tiles,
NUM_SMS)`), each running the K loop for its tile; A (M x K), B (N x K) and C (M x N)
through host-side tensor descriptors. The grid is min(NUM_SMS, tiles) programs.
"""

import triton
import triton.language as tl


@triton.jit
def gemm_persistent_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    start = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    for tile_id in tl.range(start, num_tiles, NUM_SMS):
        off_m = (tile_id % num_pid_m) * BLOCK_M
        off_n = (tile_id // num_pid_m) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([off_m, ki * BLOCK_K])
            b = b_desc.load([off_n, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


def gemm_persistent(a, b, kernel=gemm_persistent_kernel, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_sms=None,
                    num_warps=8):
    """C (a's dtype) = a @ b.T for torch CUDA tensors a (M x K) and b (N x K)."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    N = b.shape[0]
    if num_sms is None:
        num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    kernel[(min(num_sms, tiles),)](a_desc, b_desc, c_desc, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                   BLOCK_K=BLOCK_K, NUM_SMS=num_sms, num_warps=num_warps)
    return c


TTIR = {
    "gemm_persistent_f16_128x256x64_sms132": (gemm_persistent_kernel, {
        "a_desc": "tensordesc<fp16[128,64]>", "b_desc": "tensordesc<fp16[256,64]>",
        "c_desc": "tensordesc<fp16[128,256]>", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "NUM_SMS": 132}, 8),
    "gemm_persistent_f16_64x64x32_sms3": (gemm_persistent_kernel, {
        "a_desc": "tensordesc<fp16[64,32]>", "b_desc": "tensordesc<fp16[64,32]>",
        "c_desc": "tensordesc<fp16[64,64]>", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "NUM_SMS": 3}, 4),
}
