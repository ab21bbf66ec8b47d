"""Small Triton kernels whose TTIR (NAME_vX.Y.ttir beside this file, printed by Triton X.Y) the
tests under test/triton/ read:

- print, asm, histogram use Triton ops the import does not read: unsupported-ops.test checks
  that each is an error naming the op at the line and column below;
- gemm_epilogue_i64 is a descriptor GEMM whose bias load and C store address i64 offset tiles
  (`offs.to(tl.int64)`): ws-hopper lowers it (i64-offsets.test) and the import keeps its meaning
  (test_triton_versions.py);
- block_pointer_rowsum reads and writes through block pointers with boundary checks, which
  Triton 3.4-3.8 rewrite into pointer tiles addressed and masked in i64
  (test_triton_versions.py interprets it against numpy).

Regenerate with each Triton (3.4, 3.6, 3.9; block pointers need one before 3.9):

    python test/triton/Inputs/kernels.py
"""

import triton
import triton.language as tl


@triton.jit
def print_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.device_print("x", x)
    tl.store(y_ptr + offs, x, mask=offs < n)


@triton.jit
def asm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, 3;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def histogram_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y_ptr + tl.arange(0, 16), tl.histogram(x, 16))


@triton.jit
def gemm_epilogue_i64(a_desc, b_desc, bias_ptr, c_ptr, M, N, K, stride_cm,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B^T + bias, the epilogue addressed with int64 offsets."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    acc = acc + bias[None, :].to(tl.float32)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)


@triton.jit
def block_pointer_rowsum(A, B, M, K, stride_am, BM: tl.constexpr, BK: tl.constexpr):
    """B[rows, :BK] = the sum over k of A[rows, k*BK:(k+1)*BK], zero-padded past M and K."""
    pid = tl.program_id(0)
    a = tl.make_block_ptr(A, shape=(M, K), strides=(stride_am, 1), offsets=(pid * BM, 0), block_shape=(BM, BK),
                          order=(1, 0))
    acc = tl.zeros((BM, BK), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.load(a, boundary_check=(0, 1), padding_option="zero").to(tl.float32)
        a = tl.advance(a, (0, BK))
    b = tl.make_block_ptr(B, shape=(M, BK), strides=(BK, 1), offsets=(pid * BM, 0), block_shape=(BM, BK),
                          order=(1, 0))
    tl.store(b, acc, boundary_check=(0,))


# desc_reduce reduces blocks into descriptors with `desc.atomic_add` / `atomic_min` / `atomic_max`
# (tt.descriptor_reduce; printed by Triton 3.9 only), desc_reduce_and with `desc.atomic_and`,
# which the import refuses at its line (descriptor-reduce.test). Kept below the others so that
# their lines (in the TTIR of every Triton version) stay where they are.
@triton.jit
def desc_reduce(x_desc, y_desc, i_desc, BLOCK: tl.constexpr):
    """y += x's block and i = min(max(i, x), x) on block rows pid * BLOCK (TMA reductions)."""
    off = tl.program_id(0) * BLOCK
    x = x_desc.load([off, 0])
    y_desc.atomic_add([off, 0], x)
    xi = x.to(tl.int32)
    i_desc.atomic_max([off, 0], xi)
    i_desc.atomic_min([off, 0], xi)


@triton.jit
def desc_reduce_and(i_desc, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK
    x = i_desc.load([off, 0])
    i_desc.atomic_and([off, 0], x)


KERNELS = {
    "print": (print_kernel, {"x_ptr": "*i32", "y_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 64}),
    "asm": (asm_kernel, {"x_ptr": "*i32", "y_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 64}),
    "histogram": (histogram_kernel, {"x_ptr": "*i32", "y_ptr": "*i32", "BLOCK": "constexpr"}, {"BLOCK": 64}),
    "gemm_epilogue_i64": (gemm_epilogue_i64, {"a_desc": "tensordesc<fp16[128,64]>", "b_desc": "tensordesc<fp16[128,64]>",
                                              "bias_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                                              "stride_cm": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                                              "BLOCK_K": "constexpr"},
                          {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}),
    "block_pointer_rowsum": (block_pointer_rowsum, {"A": "*fp16", "B": "*fp32", "M": "i32", "K": "i32",
                                                    "stride_am": "i32", "BM": "constexpr", "BK": "constexpr"},
                             {"BM": 16, "BK": 32}),
    "desc_reduce": (desc_reduce, {"x_desc": "tensordesc<fp32[64,32]>", "y_desc": "tensordesc<fp32[64,32]>",
                                  "i_desc": "tensordesc<i32[64,32]>", "BLOCK": "constexpr"}, {"BLOCK": 64}),
    "desc_reduce_and": (desc_reduce_and, {"i_desc": "tensordesc<i32[64,32]>", "BLOCK": "constexpr"}, {"BLOCK": 64}),
}
NEEDS_BLOCK_POINTERS = {"block_pointer_rowsum"}  # gone from Triton 3.9
NEEDS_TRITON_3_9 = {"desc_reduce", "desc_reduce_and"}  # printed by Triton 3.9 only (no older TTIR checked in)

if __name__ == "__main__":
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    sys.path[:0] = [str(here.parents[2]), str(here.parents[2] / "tools")]
    import regen_ttir

    from wsdialects.triton.frontend import ttir

    version = ".".join(triton.__version__.split(".")[:2])
    for name, (fn, sig, consts) in KERNELS.items():
        if name in NEEDS_BLOCK_POINTERS and tuple(map(int, version.split("."))) >= (3, 9):
            continue
        if name in NEEDS_TRITON_3_9 and tuple(map(int, version.split("."))) < (3, 9):
            continue
        warps = 8 if name == "gemm_epilogue_i64" else 4
        text = regen_ttir.normalize(ttir(fn, sig, consts, warps))
        text = text.replace("module {", f'module attributes {{"ttg.num-warps" = {warps} : i32}} {{', 1)
        out = here / f"{name}_v{version}.ttir"
        out.write_text(f"// Generated by test/triton/Inputs/{Path(__file__).name} ({fn.__name__}) with triton {triton.__version__}; do not edit.\n"
                       + text)
        print(out)
