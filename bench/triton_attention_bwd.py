"""The Triton peer of bench/attention_bwd.py: an attention backward in Triton, organised as
Triton's fused-attention tutorial organises its backward (written here from the algorithm), and
a forward that returns the LSE it needs.

    o, lse = attention_forward(q, k, v, causal)                 # lse: float32, log2 units
    dq, dk, dv = attention_backward(q, k, v, o, lse, do, causal, cfg=CONFIGS[0])

q, k, v, o, do: [B, H, L, d] or [BH, L, d], one dtype (float16 or bfloat16), d 64 or 128, any L
(rows past L are read as zeros and not written); sm_scale defaults to 1/sqrt(d). LSE is the
row log-sum-exp of the scaled scores in log2 units, log2(sum_j 2^(s_ij·sm_scale·log2 e)), the
convention of the tutorial's forward and of wsdialects' `attention_forward`; the benchmark runs
this file's own forward for it (not timed), so the peer depends on nothing of ours.

The backward is two launches:

    _bwd_preprocess  Delta = rowsum(dO ∘ O) in f32                       grid (cdiv(L, 128), BH)
    _attn_bwd        program p: dK, dV of key block p (BN1 keys) looping  grid (cdiv(L, BN1), BH)
                     over query blocks of BM1, then dQ of query block p
                     (BM2 = BN1 queries) looping over key blocks of BN2

Per query block i of key block j (P^T = exp2(K_j·Q_i^T·sm_scale·log2 e - LSE_i)):
dV_j += P^T·dO_i, dP^T = V_j·dO_i^T, dS^T = P^T ∘ (dP^T - Delta_i), dK_j += dS^T·Q_i; per key block
j of query block i: dS = P ∘ (dO_i·V_j^T - Delta_i), dQ_i += dS·K_j. dK and dQ are scaled by
sm_scale when stored. No atomics: dQ is recomputed in its own loop (the tutorial's choice: a
second S and dP per block instead of a reduction across programs). Causal: a key block's
queries start at its own first row, the diagonal block masked, those after it not; a query
block's keys end at its diagonal block, masked, those before it not. The tutorial scales K by
sm_scale·log2 e in torch before the launch; here the scale is one multiply on S^T in the kernel
(no extra pass over K in the timed region).

CONFIGS = (BM1, BN1, BM2, BN2, warps, stages): the tutorial's blocks (32, 128, 128, 32) and two
others; the benchmark keeps the fastest correct one. Importing this file needs triton; running
the wrappers needs torch (TRITON_INTERPRET=1 runs them on CPU tensors).
"""

from __future__ import annotations

import math

import triton
import triton.language as tl

# (BM1, BN1, BM2, BN2, warps, stages); BM2 == BN1 (one grid serves both loops). The first is the
# tutorial's; at d 128 it spills (255 registers and a stack of about 1 KB with 4 warps), so does
# the second causal (512 B); the third does not (sm_90a cubins, cuobjdump -res-usage).
CONFIGS = [(32, 128, 128, 32, 4, 5), (64, 128, 128, 64, 8, 3), (32, 128, 128, 32, 8, 4)]
PRE_BM = 128  # the preprocess kernel's rows per program
FWD_BLOCK = (128, 64, 8, 3)  # the forward's (BM, BN, warps, stages)


@triton.jit
def _rows(ptr, offs, L, D: tl.constexpr, EVEN: tl.constexpr):
    """The rows `offs` of the [L, D] matrix at ptr; rows at or past L read as zeros."""
    p = ptr + offs[:, None] * D + tl.arange(0, D)[None, :]
    if EVEN:
        x = tl.load(p)
    else:
        x = tl.load(p, mask=offs[:, None] < L, other=0.0)
    return x


@triton.jit
def _store_rows(ptr, offs, x, L, D: tl.constexpr, EVEN: tl.constexpr):
    p = ptr + offs[:, None] * D + tl.arange(0, D)[None, :]
    if EVEN:
        tl.store(p, x)
    else:
        tl.store(p, x, mask=offs[:, None] < L)


@triton.jit
def _vec(ptr, offs, L, EVEN: tl.constexpr):
    """Elements `offs` of the L-vector at ptr; past L zeros."""
    if EVEN:
        x = tl.load(ptr + offs)
    else:
        x = tl.load(ptr + offs, mask=offs < L, other=0.0)
    return x


@triton.jit
def _bwd_preprocess(O, DO, DELTA, L, D: tl.constexpr, BM: tl.constexpr, EVEN: tl.constexpr):
    """Delta[bh, m] = sum_d O[bh, m, d] · dO[bh, m, d] in f32."""
    bh = tl.program_id(1).to(tl.int64)
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    o = _rows(O + bh * L * D, offs_m, L, D, EVEN).to(tl.float32)
    do = _rows(DO + bh * L * D, offs_m, L, D, EVEN).to(tl.float32)
    delta = tl.sum(o * do, axis=1)
    if EVEN:
        tl.store(DELTA + bh * L + offs_m, delta)
    else:
        tl.store(DELTA + bh * L + offs_m, delta, mask=offs_m < L)


@triton.jit
def _bwd_dkdv(dk, dv, Q, DO, LSE, DELTA, k, v, start_n, start_m, num_steps, qk_scale, L,
              BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr, MASK: tl.constexpr, EVEN: tl.constexpr):
    """dK, dV of the key block at start_n (k, v: its rows) over `num_steps` query blocks of BM
    from start_m; MASK: drop the pairs whose query precedes its key (the causal diagonal)."""
    offs_n = start_n + tl.arange(0, BN)
    for i in range(num_steps):
        offs_m = start_m + i * BM + tl.arange(0, BM)
        q = _rows(Q, offs_m, L, D, EVEN)
        do = _rows(DO, offs_m, L, D, EVEN)
        lse = _vec(LSE, offs_m, L, EVEN)
        delta = _vec(DELTA, offs_m, L, EVEN)
        pT = tl.math.exp2(tl.dot(k, tl.trans(q)) * qk_scale - lse[None, :])
        if MASK:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        dv = tl.dot(pT.to(do.dtype), do, dv)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - delta[None, :])
        dk = tl.dot(dsT.to(q.dtype), q, dk)
    return dk, dv


@triton.jit
def _bwd_dq(dq, q, do, lse, delta, K, V, start_m, start_n, num_steps, qk_scale, L,
            BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr, MASK: tl.constexpr, EVEN: tl.constexpr):
    """dQ of the query block at start_m (q, do, lse, delta: its rows) over `num_steps` key
    blocks of BN from start_n; MASK as in _bwd_dkdv."""
    offs_m = start_m + tl.arange(0, BM)
    for i in range(num_steps):
        offs_n = start_n + i * BN + tl.arange(0, BN)
        k = _rows(K, offs_n, L, D, EVEN)
        v = _rows(V, offs_n, L, D, EVEN)
        p = tl.math.exp2(tl.dot(q, tl.trans(k)) * qk_scale - lse[:, None])
        if MASK:
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(k.dtype), k, dq)
    return dq


@triton.jit
def _attn_bwd(Q, K, V, DO, DQ, DK, DV, LSE, DELTA, sm_scale, L, D: tl.constexpr,
              BM1: tl.constexpr, BN1: tl.constexpr, BM2: tl.constexpr, BN2: tl.constexpr,
              CAUSAL: tl.constexpr, EVEN: tl.constexpr):
    """Program (p, bh): dK, dV of key block p, then dQ of query block p (BM2 == BN1)."""
    pid = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    off = bh * L * D
    Q += off
    K += off
    V += off
    DO += off
    DQ += off
    DK += off
    DV += off
    LSE += bh * L
    DELTA += bh * L
    qk_scale = sm_scale * 1.4426950408889634

    start_n = pid * BN1
    offs_n = start_n + tl.arange(0, BN1)
    k = _rows(K, offs_n, L, D, EVEN)
    v = _rows(V, offs_n, L, D, EVEN)
    dk = tl.zeros([BN1, D], dtype=tl.float32)
    dv = tl.zeros([BN1, D], dtype=tl.float32)
    if CAUSAL:
        # the diagonal block: queries start_n .. start_n + BN1, masked
        dk, dv = _bwd_dkdv(dk, dv, Q, DO, LSE, DELTA, k, v, start_n, start_n, BN1 // BM1, qk_scale, L,
                           BM1, BN1, D, True, EVEN)
        start_m = start_n + BN1
    else:
        start_m = 0
    # (causal, the last block of a ragged L: start_m past L, no step; clamped, as cdiv of a
    # negative number rounds toward zero on the GPU)
    dk, dv = _bwd_dkdv(dk, dv, Q, DO, LSE, DELTA, k, v, start_n, start_m,
                       tl.cdiv(tl.maximum(L - start_m, 0), BM1), qk_scale, L, BM1, BN1, D, False, EVEN)
    _store_rows(DV, offs_n, dv.to(DV.dtype.element_ty), L, D, EVEN)
    _store_rows(DK, offs_n, (dk * sm_scale).to(DK.dtype.element_ty), L, D, EVEN)

    start_m = pid * BM2
    offs_m = start_m + tl.arange(0, BM2)
    q = _rows(Q, offs_m, L, D, EVEN)
    do = _rows(DO, offs_m, L, D, EVEN)
    lse = _vec(LSE, offs_m, L, EVEN)
    delta = _vec(DELTA, offs_m, L, EVEN)
    dq = tl.zeros([BM2, D], dtype=tl.float32)
    if CAUSAL:
        # keys before the diagonal block unmasked, then the diagonal block masked
        dq = _bwd_dq(dq, q, do, lse, delta, K, V, start_m, 0, start_m // BN2, qk_scale, L,
                     BM2, BN2, D, False, EVEN)
        dq = _bwd_dq(dq, q, do, lse, delta, K, V, start_m, start_m, BM2 // BN2, qk_scale, L,
                     BM2, BN2, D, True, EVEN)
    else:
        dq = _bwd_dq(dq, q, do, lse, delta, K, V, start_m, 0, tl.cdiv(L, BN2), qk_scale, L,
                     BM2, BN2, D, False, EVEN)
    _store_rows(DQ, offs_m, (dq * sm_scale).to(DQ.dtype.element_ty), L, D, EVEN)


@triton.jit
def _attn_fwd_lse(Q, K, V, O, LSE, sm_scale, L, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                  CAUSAL: tl.constexpr, EVEN: tl.constexpr):
    """O = softmax(Q·K^T·sm_scale)·V by online softmax in exp2, and LSE = m + log2(l) (log2
    units) per row; keys past L (and after the row, causal) masked to -inf."""
    start_m = tl.program_id(0) * BM
    bh = tl.program_id(1).to(tl.int64)
    off = bh * L * D
    offs_m = start_m + tl.arange(0, BM)
    q = _rows(Q + off, offs_m, L, D, EVEN)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    if CAUSAL:
        hi = tl.minimum(L, start_m + BM)
    else:
        hi = L
    for start_n in range(0, hi, BN):
        offs_n = start_n + tl.arange(0, BN)
        k = _rows(K + off, offs_n, L, D, EVEN)
        v = _rows(V + off, offs_n, L, D, EVEN)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        if CAUSAL:
            s = tl.where(offs_m[:, None] >= offs_n[None, :], s, float("-inf"))
        if not EVEN:
            s = tl.where(offs_n[None, :] < L, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    _store_rows(O + off, offs_m, (acc / l_i[:, None]).to(O.dtype.element_ty), L, D, EVEN)
    if EVEN:
        tl.store(LSE + bh * L + offs_m, m_i + tl.math.log2(l_i))
    else:
        tl.store(LSE + bh * L + offs_m, m_i + tl.math.log2(l_i), mask=offs_m < L)


def _flat(x):
    """[B, H, L, d] or [BH, L, d] as a contiguous [BH, L, d]."""
    return x.reshape(-1, x.shape[-2], x.shape[-1]).contiguous()


def _check(q, d):
    if d not in (64, 128):
        raise ValueError(f"head dim must be 64 or 128, got {d}")
    if str(q.dtype) not in ("torch.float16", "torch.bfloat16"):
        raise ValueError(f"dtype must be float16 or bfloat16, got {q.dtype}")


def attention_forward(q, k, v, causal: bool, sm_scale: float | None = None, block=FWD_BLOCK):
    """(o, lse): attention of q, k, v ([B, H, L, d] or [BH, L, d]) and its row LSE in log2
    units (float32, q's shape without d). Not timed by the benchmark: it makes the backward's
    inputs."""
    import torch

    L, d = q.shape[-2:]
    _check(q, d)
    sm_scale = 1 / math.sqrt(d) if sm_scale is None else sm_scale
    q3, k3, v3 = _flat(q), _flat(k), _flat(v)
    o = torch.empty_like(q3)
    lse = torch.empty(q3.shape[:2], device=q.device, dtype=torch.float32)
    BM, BN, w, st = block
    if q3.numel():
        _attn_fwd_lse[(triton.cdiv(L, BM), q3.shape[0])](q3, k3, v3, o, lse, sm_scale, L, D=d, BM=BM, BN=BN,
                                                          CAUSAL=causal, EVEN=L % BM == 0 and L % BN == 0,
                                                          num_warps=w, num_stages=st)
    return o.view(q.shape), lse.view(q.shape[:-1])


def attention_backward(q, k, v, o, lse, do, causal: bool, sm_scale: float | None = None, cfg=CONFIGS[0],
                       out=None):
    """(dq, dk, dv) of attention(q, k, v) for the output gradient do, given the forward's o and
    lse (log2 units); cfg: one of CONFIGS' form (BM1, BN1, BM2, BN2, warps, stages); out: three
    tensors of q's shape and dtype, contiguous, to write into (else new ones)."""
    import torch

    L, d = q.shape[-2:]
    _check(q, d)
    BM1, BN1, BM2, BN2, w, st = cfg
    if BM2 != BN1 or BN1 % BM1 or BM2 % BN2:
        raise ValueError(f"config {cfg}: BM2 must equal BN1, BM1 divide BN1, BN2 divide BM2")
    sm_scale = 1 / math.sqrt(d) if sm_scale is None else sm_scale
    q3, k3, v3, o3, do3 = (_flat(x) for x in (q, k, v, o, do))
    lse2 = lse.reshape(q3.shape[:2]).contiguous()
    BH = q3.shape[0]
    if out is None:
        out = tuple(torch.empty_like(q) for _ in range(3))
    dq3, dk3, dv3 = (g.view(q3.shape) for g in out)
    if BH and L:
        delta = torch.empty_like(lse2)
        _bwd_preprocess[(triton.cdiv(L, PRE_BM), BH)](o3, do3, delta, L, D=d, BM=PRE_BM, EVEN=L % PRE_BM == 0)
        _attn_bwd[(triton.cdiv(L, BN1), BH)](q3, k3, v3, do3, dq3, dk3, dv3, lse2, delta, sm_scale, L, D=d,
                                            BM1=BM1, BN1=BN1, BM2=BM2, BN2=BN2, CAUSAL=causal, EVEN=L % BN1 == 0,
                                            num_warps=w, num_stages=st)
    return out


def compile_for_hopper(kernel: str, dtype: str, d: int, causal: bool, cfg=CONFIGS[0], even: bool = False):
    """The kernel compiled for sm_90a without a GPU (triton.compile, the CompiledKernel: its
    metadata.shared and asm["ptx"]): kernel "backward" (with cfg), "preprocess" or "forward";
    dtype "fp16" or "bf16"; even: L a multiple of the blocks (no bounds masks)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    ptr = "*" + dtype
    if kernel == "backward":
        BM1, BN1, BM2, BN2, w, st = cfg
        sig = {n: ptr for n in ("Q", "K", "V", "DO", "DQ", "DK", "DV")}
        sig.update(LSE="*fp32", DELTA="*fp32", sm_scale="fp32", L="i32")
        fn, consts = _attn_bwd, dict(D=d, BM1=BM1, BN1=BN1, BM2=BM2, BN2=BN2, CAUSAL=causal, EVEN=even)
    elif kernel == "preprocess":
        sig, w, st = {"O": ptr, "DO": ptr, "DELTA": "*fp32", "L": "i32"}, 4, 1
        fn, consts = _bwd_preprocess, dict(D=d, BM=PRE_BM, EVEN=even)
    elif kernel == "forward":
        BM, BN, w, st = FWD_BLOCK
        sig = {n: ptr for n in ("Q", "K", "V", "O")}
        sig.update(LSE="*fp32", sm_scale="fp32", L="i32")
        fn, consts = _attn_fwd_lse, dict(D=d, BM=BM, BN=BN, CAUSAL=causal, EVEN=even)
    else:
        raise ValueError(f"kernel must be backward, preprocess or forward, got {kernel!r}")
    sig.update({n: "constexpr" for n in consts})
    return triton.compile(ASTSource(fn, sig, constexprs=consts), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": w, "num_stages": st})
