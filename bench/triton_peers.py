"""Triton peers of the benchmarks (bench/gemm.py, bench/gemm_kinds.py): the tutorial matmul and
the TMA-persistent matmul, the strongest Triton form on Hopper (one program per SM looping over the
output tiles, A, B and C through device-side tensor descriptors, `tl.make_tensor_descriptor`).

The TMA-persistent kernel is generic over what the GEMM kinds need, every choice a constexpr (so
each kind compiles to its own specialized kernel): a batch (3-D descriptors, each access naming
its batch first, as test/Inputs/kernels/gemm_kinds/batched_tma_gemm.mlir does), a second B sharing
the A load (gated MLP: two dots, two accumulators), and the epilogues

    none       C = acc
    bias_gelu  C = gelu_tanh(acc + bias[n]) with tanh.approx.f32, as ours lowers math.tanh
    scale      C = acc * scale_a[0] * scale_b[0] (fp8 e4m3 in: Triton's default on sm_90 keeps the
               wgmma accumulator without periodic fp32 promotion, as ours)
    silu_mul   C = silu(acc) * acc2, silu(g) = g / (1 + exp(-g))

C's element type is the output tensor's; fp32 accumulation throughout.

    tma_persistent_matmul(a, b, c, (BM, BN, BK), stages, warps, b2=..., bias=..., scales=..., epilogue=...)

Needs torch and triton (a GPU to launch); importing it needs both.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


def ensure_allocator() -> bool:
    """Device-side tensor descriptors need scratch memory from the launching framework; an older
    Triton has no `set_allocator` (then its TMA-persistent launches fail and are reported)."""
    if not hasattr(triton, "set_allocator"):
        return False
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    return True


# ----------------------------------------------------------------------------- tutorial matmul
@triton.jit
def _tl_matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbn, sbk, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    width = GROUP * npn
    gid = pid // width
    first = gid * GROUP
    gsz = min(npm - first, GROUP)
    pm = first + (pid % width) % gsz
    pn = (pid % width) // gsz
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rn[None, :] * sbn + rk[:, None] * sbk
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(x, y, acc)
        a += BK * sak
        b += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    c = c_ptr + cm[:, None] * scm + cn[None, :] * scn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


def triton_mm(a, b, c, cfg):
    """The tutorial matmul, C = A·Bᵀ (A M x K, B N x K); cfg = (BM, BN, BK, stages, warps)."""
    M, K = a.shape
    N = b.shape[0]
    BM, BN, BK, st, w = cfg
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _tl_matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                     BM=BM, BN=BN, BK=BK, GROUP=8, num_stages=st, num_warps=w)


# ----------------------------------------------------------------------------- TMA-persistent
@triton.jit
def _tanh_approx(x):
    return tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)


@triton.jit
def _desc(ptr, BATCHED: tl.constexpr, batch, rows, K, BR: tl.constexpr, BK: tl.constexpr):
    if BATCHED:
        return tl.make_tensor_descriptor(ptr, shape=[batch, rows, K], strides=[rows * K, K, 1],
                                         block_shape=[1, BR, BK])
    else:
        return tl.make_tensor_descriptor(ptr, shape=[rows, K], strides=[K, 1], block_shape=[BR, BK])


@triton.jit
def _load(d, BATCHED: tl.constexpr, pb, r, c, BR: tl.constexpr, BC: tl.constexpr):
    if BATCHED:
        return d.load([pb, r, c]).reshape(BR, BC)
    else:
        return d.load([r, c])


@triton.jit
def _tl_matmul_tma_persistent(a_ptr, b_ptr, b2_ptr, c_ptr, bias_ptr, sa_ptr, sb_ptr, BATCH, M, N, K,
                              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                              PROGRAMS: tl.constexpr, BATCHED: tl.constexpr, GATED: tl.constexpr,
                              EPILOGUE: tl.constexpr):
    """The strongest Triton form on Hopper: one program per SM looping over the output tiles
    (batch outermost, then grouped along M for L2), A, B (and B2) and C through device-side TMA
    descriptors."""
    a_d = _desc(a_ptr, BATCHED, BATCH, M, K, BM, BK)
    b_d = _desc(b_ptr, BATCHED, BATCH, N, K, BN, BK)
    if GATED:
        b2_d = _desc(b2_ptr, BATCHED, BATCH, N, K, BN, BK)
    if BATCHED:
        c_d = tl.make_tensor_descriptor(c_ptr, shape=[BATCH, M, N], strides=[M * N, N, 1], block_shape=[1, BM, BN])
    else:
        c_d = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    per_batch = npm * npn
    width = GROUP * npn
    for tile in tl.range(tl.program_id(0), BATCH * per_batch, PROGRAMS, flatten=True):
        pb = tile // per_batch
        t = tile % per_batch
        first = (t // width) * GROUP
        gsz = tl.minimum(npm - first, GROUP)
        pm = first + (t % width) % gsz
        pn = (t % width) // gsz
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        if GATED:
            acc2 = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            x = _load(a_d, BATCHED, pb, pm * BM, k * BK, BM, BK)
            y = _load(b_d, BATCHED, pb, pn * BN, k * BK, BN, BK)
            acc = tl.dot(x, y.T, acc)
            if GATED:
                y2 = _load(b2_d, BATCHED, pb, pn * BN, k * BK, BN, BK)
                acc2 = tl.dot(x, y2.T, acc2)
        if EPILOGUE == "bias_gelu":
            cols = pn * BN + tl.arange(0, BN)
            bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
            v = acc + bias[None, :]
            # 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))), in the order of ours
            u = 0.7978845608 * (v * (0.044715 * (v * v) + 1.0))
            hv = 0.5 * v
            out = hv * _tanh_approx(u) + hv
        elif EPILOGUE == "scale":
            out = acc * (tl.load(sa_ptr) * tl.load(sb_ptr))
        elif EPILOGUE == "silu_mul":
            out = acc / (1.0 + tl.exp(-acc)) * acc2
        else:
            out = acc
        out = out.to(c_ptr.dtype.element_ty)
        if BATCHED:
            c_d.store([pb, pm * BM, pn * BN], out.reshape(1, BM, BN))
        else:
            c_d.store([pm * BM, pn * BN], out)


EPILOGUES = ("none", "bias_gelu", "scale", "silu_mul")


def tma_persistent_matmul(a, b, c, block, stages, warps, *, b2=None, bias=None, scales=None, epilogue="none",
                          group=8, programs=None):
    """C = epilogue(A·Bᵀ) by the TMA-persistent kernel. A is (batch x) M x K, B (and B2) (batch x)
    N x K, C (batch x) M x N, all contiguous; block = (BM, BN, BK); bias: N elements (bias_gelu);
    scales: (scale_a, scale_b), 1-element fp32 tensors (scale); b2: the second B (silu_mul).
    Launches min(SMs, tiles) programs unless `programs` says."""
    assert epilogue in EPILOGUES, epilogue
    assert (b2 is not None) == (epilogue == "silu_mul")
    assert (bias is not None) == (epilogue == "bias_gelu")
    assert (scales is not None) == (epilogue == "scale")
    for t in (a, b, c, b2):
        assert t is None or t.is_contiguous(), "the descriptors take contiguous tensors"
    batched = a.dim() == 3
    batch = a.shape[0] if batched else 1
    M, K = a.shape[-2:]
    N = b.shape[-2]
    BM, BN, BK = block
    tiles = batch * triton.cdiv(M, BM) * triton.cdiv(N, BN)
    if programs is None:
        programs = min(torch.cuda.get_device_properties(c.device).multi_processor_count, tiles)
    sa, sb = scales if scales is not None else (None, None)
    return _tl_matmul_tma_persistent[(programs,)](
        a, b, b2, c, bias, sa, sb, batch, M, N, K, BM=BM, BN=BN, BK=BK, GROUP=group, PROGRAMS=programs,
        BATCHED=batched, GATED=b2 is not None, EPILOGUE=epilogue, num_stages=stages, num_warps=warps)


def best_config(configs, launch, check=None, bench=None, label="triton", ok=None):
    """Time `launch(cfg)` for every cfg and keep the fastest. `check(cfg)` (optional) runs it once
    and returns its rel. error before the timing; a config whose error fails `ok(err)` (optional)
    is not timed (a wrong result has no speed); `bench(fn)` gives ms (default do_bench median,
    25 ms warm-up, 200 ms repeats). Returns (best, failures): best = (ms, cfg, err) or None;
    failures = ['cfg: reason', ...] (a config that does not fit, say, or that Triton cannot build)."""
    import sys

    if bench is None:
        from triton.testing import do_bench

        def bench(f):
            return do_bench(f, warmup=25, rep=200, return_mode="median")

    best, failures = None, []
    for cfg in configs:
        try:
            err = check(cfg) if check is not None else None
            if ok is not None and not ok(err):
                why = f"wrong result (rel. error {err:.3e})"
            else:
                ms = bench(lambda cfg=cfg: launch(cfg))
                why = None
        except Exception as x:  # noqa: BLE001 - a config that does not fit, reported
            why = f"{type(x).__name__}: {' '.join(str(x).split())[:200]}"
        if why is not None:
            failures.append(f"{cfg}: {why}")
            print(f"{label} config {cfg} failed: {why}", file=sys.stderr, flush=True)
            continue
        if best is None or ms < best[0]:
            best = (ms, cfg, err)
    return best, failures
