"""Grouped GEMM in the form of `torch._grouped_mm` (a Mixture-of-Experts layer): A [sum M_g, K]
holds the tokens of all G groups, B [G, N, K] the groups' weights, int32 `offs` [G] the
cumulative row ends (group g owns rows offs[g-1] .. offs[g] of A and C); C [sum M_g, N] with
C[rows of g] = A[rows of g] @ B[g]^T.

One persistent launch: NUM_SMS programs walk the output tiles of all groups
(`tl.range(pid, total, NUM_SMS)`), a scan over the offsets finds each tile's group. A goes
through one host descriptor over the whole tensor (rows past a group's end only reach output
rows the store drops), B through a 3-D host descriptor whose load names the group first (TMA
clips at N and K), C by a masked pointer store clipped at the group's end and at M. The offsets
stay on the device and no descriptor is made per group. The same kernel as
examples/kernels/grouped_gemm.mlir, as a Triton user writes it.
"""

import triton
import triton.language as tl


@triton.jit
def grouped_mm_kernel(a_desc, b_desc, c_ptr, offs_ptr, G, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    total = 0
    start = 0
    for g in range(G):
        end = tl.load(offs_ptr + g)
        total += tl.cdiv(end - start, BLOCK_M) * tiles_n
        start = end
    for tile in tl.range(pid, total, NUM_SMS):
        base = 0
        start = 0
        group = 0
        row0 = 0
        row_end = 0
        local = 0
        for g in range(G):  # the group whose tiles [base, base + tiles of g) hold `tile`
            end = tl.load(offs_ptr + g)
            tiles_g = tl.cdiv(end - start, BLOCK_M) * tiles_n
            hit = (tile >= base) & (tile < base + tiles_g)
            group = tl.where(hit, g, group)
            row0 = tl.where(hit, start, row0)
            row_end = tl.where(hit, end, row_end)
            local = tl.where(hit, tile - base, local)
            base += tiles_g
            start = end
        tiles_m = tl.cdiv(row_end - row0, BLOCK_M)
        off_m = row0 + (local % tiles_m) * BLOCK_M
        off_n = (local // tiles_m) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([off_m, ki * BLOCK_K])
            b = b_desc.load([group, off_n, ki * BLOCK_K]).reshape(BLOCK_N, BLOCK_K)
            acc = tl.dot(a, b.T, acc)
        rows = off_m + tl.arange(0, BLOCK_M)
        cols = off_n + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < tl.minimum(row_end, M)) & (cols[None, :] < N)
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)


def grouped_mm(a, b, offs, kernel=grouped_mm_kernel, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_sms=None,
               num_warps=8):
    """C = the grouped product for torch CUDA tensors a [sum M_g, K], b [G, N, K], offs int32 [G]."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    G, N, _ = b.shape
    if num_sms is None:
        num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [1, BLOCK_N, BLOCK_K])
    kernel[(num_sms,)](a_desc, b_desc, c, offs, G, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                       NUM_SMS=num_sms, num_warps=num_warps)
    return c


TTIR = {
    "grouped_mm_bf16_128x256x64_sms132": (grouped_mm_kernel, {
        "a_desc": "tensordesc<bf16[128,64]>", "b_desc": "tensordesc<bf16[1,256,64]>", "c_ptr": "*bf16",
        "offs_ptr": "*i32", "G": "i32", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "NUM_SMS": 132}, 8),
    "grouped_mm_f16_64x64x32_sms3": (grouped_mm_kernel, {
        "a_desc": "tensordesc<fp16[64,32]>", "b_desc": "tensordesc<fp16[1,64,32]>", "c_ptr": "*fp16",
        "offs_ptr": "*i32", "G": "i32", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "NUM_SMS": 3}, 4),
}
