"""Inputs, grid, poisoned output and float32 torch reference of the test/Inputs/kernels kernels
that test/gpu/test_more_kernels_gpu.py checks and tools/probes/schedule_vs_heuristic.py times.
torch is passed in: importing this file needs neither torch nor a GPU.

Each `make_*` returns a Case: launch it with `case.run(kernel)` (the output is NaN-filled
first, so an element the kernel never writes fails), then `case.error()` compares. A Case's
`out` may have more rows than the kernel writes (`fused_mlp`'s masked rows past M): those
must still be NaN afterwards.

The kernels' semantics, read from their header comments and the interpreter tests
(test/python/cases.py, test_pipeline_coarse.py, test_cooperative_rings.py):

- fused_mlp(X [M, 64], W1 [H, 64], W2 [H, 64] f16 TMA; O f32 pointer [M, 64] row stride 64,
  rows >= M masked; M, H): O = relu(X W1^T) W2, the hidden dimension in tiles of 64
  (ceil(H / 64) iterations, TMA zero-fills W rows >= H); relu's result is truncated to f16
  before the second dot. Grid: ceil(M / 64) programs.
- staged_mlp(X [<= 64, 64], W1, W2 [rows, 64] f16 TMA; O f32 pointer [64, 64], no mask; n):
  one program, X's first 64 rows (zero-filled past X's end), n iterations (n is the trip
  count, not a dimension: iteration j reads W rows 64 j .. 64 j + 63, zero past W's end);
  the same math as fused_mlp.
- two_dots(X [M, K], W1 [N, K], W2 [N, K] f16 TMA; O f32 TMA [M, N]; K):
  O = (X W1^T) * (X W2^T), 128 x 128 tiles, ceil(K / 64) iterations; the TMA store drops
  rows / columns past M, N. Grid: (ceil(M / 128), ceil(N / 128)).

A loop of zero iterations (H = 0, n = 0, K = 0) must leave zeros: TMA cannot describe an
empty tensor, so the weights (and X's columns) keep 64 entries the kernel must not read.
"""

from __future__ import annotations

from dataclasses import dataclass


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


@dataclass
class Case:
    name: str
    grid: tuple
    args: list
    out: object  # the output tensor the kernel writes (all of it, or its first len(ref) rows)
    ref: object  # float32 reference of out[:len(ref)]
    flops: float
    tol: float  # bound of ||out - ref|| / ||ref|| (an exact zero where ref is all zeros)
    why: str = ""  # the tolerance's reason

    def launcher(self, kernel):
        return lambda: kernel[self.grid](*self.args)

    def run(self, kernel):
        self.out.fill_(float("nan"))
        self.launcher(kernel)()

    def error(self) -> tuple[float, float, str]:
        """(||out - ref|| / ||ref|| (0 where both are zero), max |out - ref| / max |ref|, a
        complaint or ''): NaN left in the written part, or anything written past it."""
        import torch

        got = self.out[:self.ref.shape[0]].double()
        ref = self.ref.double()
        rest = self.out[self.ref.shape[0]:]
        bad = ""
        if torch.isnan(got).any():
            bad = f"{int(torch.isnan(got).sum())} NaN in the output (elements never written)"
        elif rest.numel() and not torch.isnan(rest).all():
            bad = f"{int((~torch.isnan(rest)).sum())} elements written past the masked rows"
        diff = (got - ref).nan_to_num(nan=float("inf"))
        scale, peak = ref.norm().item(), ref.abs().max().item() if ref.numel() else 0.0
        rel = diff.norm().item() / scale if scale else (0.0 if not diff.abs().max().item() else float("inf"))
        mx = diff.abs().max().item() / peak if peak else (0.0 if not diff.abs().max().item() else float("inf"))
        return rel, mx, bad

    def check(self):
        rel, _, bad = self.error()
        assert not bad, f"{self.name}: {bad}"
        assert rel <= self.tol, f"{self.name}: rel. error {rel:.3e} > {self.tol:g}"


# fp16 inputs are exact in float32 and so are their products: what differs from the float32
# reference is the order of the float32 sums (~1e-6 relative); a lost, doubled or misplaced
# 64-wide tile costs > 1e-2.
F32_TOL = 1e-4
# fused_mlp / staged_mlp round relu(X W1^T) to f16 (arith.truncf) before the second dot, and so does
# the reference; where the sum order moves an element across an f16 rounding boundary that term
# differs by one f16 ulp (2^-11 relative, a ~1e-4 chance each): ~1e-5 of the norm.
MLP_TOL = 2e-4
MLP_WHY = "f32 sums; the hidden tile rounded to f16 in both, rare 1-ulp flips"


def _mlp_ref(torch, x, w1, w2):
    h = torch.relu(x.float() @ w1.float().T).half().float()
    return h @ w2.float()


def _weights(torch, rows, scale, g):
    return (torch.randn(rows, 64, device="cuda", generator=g) * scale).half()


def make_fused_mlp(torch, M: int, H: int, seed: int | None = None) -> Case:
    g = torch.Generator(device="cuda").manual_seed(seed if seed is not None else M * 31 + H)
    x = torch.randn(M, 64, device="cuda", dtype=torch.float16, generator=g)
    rows = H or 64  # H = 0: weights the kernel must not read (TMA has no empty tensor)
    w1 = _weights(torch, rows, 64 ** -0.5, g)  # X W1^T ~ N(0, 1)
    w2 = _weights(torch, rows, max(H, 1) ** -0.5, g)  # O of order 1
    # the masked rows past M up to the last tile's end stay NaN: they must not be written
    o = torch.empty(cdiv(M, 64) * 64, 64, device="cuda", dtype=torch.float32)
    ref = _mlp_ref(torch, x, w1[:H], w2[:H]) if H else torch.zeros(M, 64, device="cuda")
    return Case(f"fused_mlp M={M} H={H}", (cdiv(M, 64),), [x, w1, w2, o, M, H], o, ref,
                flops=4.0 * M * H * 64, tol=MLP_TOL, why=MLP_WHY)


def make_staged_mlp(torch, n: int, x_rows: int = 64, w_rows: int | None = None, seed: int | None = None) -> Case:
    """n iterations; X of x_rows <= 64 rows, W of w_rows (default 64 n; fewer: ragged, zero-filled)."""
    w_rows = 64 * n if w_rows is None else w_rows
    assert x_rows <= 64 and (n == 0 or 64 * (n - 1) < w_rows <= 64 * n), (n, x_rows, w_rows)
    g = torch.Generator(device="cuda").manual_seed(seed if seed is not None else n * 7 + x_rows + w_rows)
    x = torch.randn(x_rows, 64, device="cuda", dtype=torch.float16, generator=g)
    rows = w_rows or 64
    w1 = _weights(torch, rows, 64 ** -0.5, g)
    w2 = _weights(torch, rows, max(w_rows, 1) ** -0.5, g)
    o = torch.empty(64, 64, device="cuda", dtype=torch.float32)
    x64 = torch.zeros(64, 64, device="cuda", dtype=torch.float16)
    x64[:x_rows] = x
    ref = _mlp_ref(torch, x64, w1[:w_rows], w2[:w_rows]) if n else torch.zeros(64, 64, device="cuda")
    # one accumulator summed over n steps in sequence (the reference sums in a tree): its f32
    # rounding grows ~linearly with n (H200: 7.9e-5 at n 1024, 6.2e-4 at 8192, both pipelines alike)
    return Case(f"staged_mlp n={n} X rows={x_rows} W rows={w_rows}", (1,), [x, w1, w2, o, n], o, ref,
                flops=4.0 * 64 * 64 * 64 * n, tol=MLP_TOL + 1e-7 * n, why=MLP_WHY + "; sequential f32 sum of n steps")


def make_two_dots(torch, M: int, N: int, K: int, seed: int | None = None) -> Case:
    """K a multiple of 8 (TMA's 16-byte rows), N of 4 (the f32 output's); K = 0: no iteration."""
    g = torch.Generator(device="cuda").manual_seed(seed if seed is not None else M + 3 * N + 7 * K)
    cols = K or 64
    x = torch.randn(M, cols, device="cuda", dtype=torch.float16, generator=g)
    w1 = (torch.randn(N, cols, device="cuda", generator=g) * max(K, 1) ** -0.5).half()
    w2 = (torch.randn(N, cols, device="cuda", generator=g) * max(K, 1) ** -0.5).half()
    o = torch.empty(M, N, device="cuda", dtype=torch.float32)
    if K:
        xf = x.float()
        ref = (xf @ w1.float().T) * (xf @ w2.float().T)
    else:
        ref = torch.zeros(M, N, device="cuda")
    return Case(f"two_dots M={M} N={N} K={K}", (cdiv(M, 128), cdiv(N, 128)), [x, w1, w2, o, K], o, ref,
                flops=4.0 * M * N * K, tol=F32_TOL, why="f32 sums of exact f16 products, one product")


# ---- more kernels of test/Inputs/kernels and examples/kernels, for the timing probe (their
# correctness at small ragged shapes is test/gpu/test_hopper_gpu.py's)

def _f16(torch, r, c, g, scale=1.0):
    return (torch.randn(r, c, device="cuda", generator=g) * scale).half()


def make_gemm(torch, M, N, K, seed=0):
    """examples/kernels/gemm.mlir: C = A B^T, 128 x 256 tiles on a 1-D grid, f16 out."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b = _f16(torch, M, K, g), _f16(torch, N, K, g, K ** -0.5)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    return Case(f"gemm M={M} N={N} K={K}", (cdiv(M, 128) * cdiv(N, 256),), [a, b, c, M, N, K, N], c,
                a.float() @ b.float().T, 2.0 * M * N * K, 2e-3, "f16 output")


def make_dual_dot(torch, M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, wg, wu = _f16(torch, M, K, g), _f16(torch, N, K, g, K ** -0.5), _f16(torch, N, K, g, K ** -0.5)
    o = torch.empty(M, N, device="cuda", dtype=torch.float32)
    return Case(f"dual_dot M={M} N={N} K={K}", (cdiv(M, 64), cdiv(N, 64)), [a, wg, wu, o, K], o,
                (a.float() @ wg.float().T) * (a.float() @ wu.float().T), 4.0 * M * N * K, F32_TOL, "f32 out")


def make_bias_gemm(torch, M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b = _f16(torch, M, K, g), _f16(torch, N, K, g, K ** -0.5)
    bias = torch.randn(N, device="cuda", generator=g)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    return Case(f"bias_gemm M={M} N={N} K={K}", (cdiv(M, 64), cdiv(N, 64)), [a, b, bias, c, N, K], c,
                a.float() @ b.float().T + bias, 2.0 * M * N * K, 2e-3, "f16 output")


def make_tma_store_gemm(torch, M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b = _f16(torch, M, K, g), _f16(torch, N, K, g, K ** -0.5)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    return Case(f"tma_store_gemm M={M} N={N} K={K}", (cdiv(M, 128), cdiv(N, 128)), [a, b, c, K], c,
                a.float() @ b.float().T, 2.0 * M * N * K, 2e-3, "f16 output")


def make_relu_gemm(torch, M, N, K, seed=0):
    """relu = 1: C = 2 relu(A B^T) (the scf.if with results taken)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b = _f16(torch, M, K, g), _f16(torch, N, K, g, K ** -0.5)
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    return Case(f"relu_gemm M={M} N={N} K={K}", (cdiv(M, 64), cdiv(N, 64)), [a, b, c, K, 1], c,
                2 * torch.relu(a.float() @ b.float().T), 2.0 * M * N * K, F32_TOL, "f32 out")


def make_fp8_gemm(torch, M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = (torch.randn(M, K, device="cuda", generator=g) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device="cuda", generator=g) * 0.5).to(torch.float8_e4m3fn)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    return Case(f"fp8_gemm M={M} N={N} K={K}", (cdiv(M, 64), cdiv(N, 64)), [a, b, c, K], c,
                a.float() @ b.float().T, 2.0 * M * N * K, 2e-3, "f16 output")


# kernel file stem -> (make, probe sizes: the arguments of make after torch)
PROBE = {
    # rows 8192 (128 programs: one wave) and 32768; the hidden loop 4096 and 16384 (64, 256 iterations)
    "fused_mlp": (make_fused_mlp, [(8192, 4096), (32768, 16384)]),
    # ONE program: its speed is one SM's; n = 1024 and 8192 iterations (W 8 and 64 MB each)
    "staged_mlp": (make_staged_mlp, [(1024,), (8192,)]),
    # 8192 x 8192 outputs (64 x 64 tiles of 128), K = 4096 and 16384
    "two_dots_shared_load": (make_two_dots, [(8192, 8192, 4096), (8192, 8192, 16384)]),
    "gemm": (make_gemm, [(8192, 8192, 4096), (8192, 8192, 16384)]),
    "dual_dot": (make_dual_dot, [(8192, 8192, 4096), (8192, 8192, 16384)]),
    "bias_gemm": (make_bias_gemm, [(8192, 8192, 4096), (8192, 8192, 16384)]),
    "tma_store_gemm": (make_tma_store_gemm, [(8192, 8192, 4096), (8192, 8192, 16384)]),
    "relu_gemm": (make_relu_gemm, [(8192, 8192, 4096), (8192, 8192, 16384)]),
    "fp8_gemm": (make_fp8_gemm, [(8192, 8192, 4096), (8192, 8192, 16384)]),
}
