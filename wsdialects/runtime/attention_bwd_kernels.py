"""The `tile` kernels of attention training (FlashAttention-2/3's backward), as text:

- `forward_lse`: the forward (Triton tutorial's algorithm) that also stores LSE, the row
  log-sum-exp in log2 units of the scaled scores: LSE[m] = log2(sum_n exp2(S[m, n] *
  sm_scale * log2(e))) = m_i + log2(l_i), f32, [B*H, L];
- `preprocess`: Delta[m] = rowsum(dO * O), f32, [B*H, L];
- `backward`: one program per key block K_j, V_j (grid (cdiv(L, BN), B*H)); a loop over the
  query blocks i loads Q_i, dO_i, LSE_i, Delta_i; Pt = exp2(K_j Q_i^T * sm_scale * log2(e)
  - LSE), dPt = V_j dO_i^T, dSt = Pt * (dPt - Delta); dV_j += Pt dO_i, dK_j += dSt Q_i (the
  register tiles as the A operand) and dQ_i += dS K_j (dS = tile.trans of dSt; or dQ_i^T +=
  K_j^T dSt, whose M is d, where the query block is too small to be a dot's M) added into an
  f32 buffer [B*H, L, d] with tile.atomic_add; dK is scaled by sm_scale at the end;
- `dq_convert`: dQ = sm_scale * (the f32 buffer), converted to f16 / bf16.

Q, K, V, O, dO, dQ, dK, dV are [B*H, L, d] arrays behind 3-D descriptors (TMA clips at each
head's L, so any L works: loads past L read zeros, stores past L are dropped); LSE and Delta
are addressed through pointers with a mask at L. Each kernel is written as a Triton user
would write it; the block sizes are parameters (the interpreter tests use small ones), and
`python -m wsdialects.runtime.attention_bwd_kernels --out examples/kernels` writes the
bundled variants (a test checks they are what this module writes):

    text = backward(dtype="f16", d=128, causal=True)   # MLIR text of one kernel
"""

from __future__ import annotations

import argparse
from pathlib import Path
from string import Template

DTYPES = ("f16", "bf16")


def _check(dtype: str, d: int, *blocks: int) -> None:
    if dtype not in DTYPES:
        raise ValueError(f"attention kernels take f16 or bf16, got {dtype}")
    if d % 16 or d <= 0:
        raise ValueError(f"head dimension must be a positive multiple of 16, got {d}")
    for b in blocks:
        if b <= 0 or b & (b - 1):
            raise ValueError(f"block sizes must be powers of two, got {b}")


def _suffix(dtype: str, d: int, causal: bool) -> str:
    return ("_causal" if causal else "") + (f"_d{d}" if d != 128 else "") + ("_bf16" if dtype == "bf16" else "")


def kernel_name(kind: str, dtype: str = "f16", d: int = 128, causal: bool = False) -> str:
    """The function (and bundled file) name of a kernel: flash_attention_<kind>[_causal][_d64][_bf16];
    the preprocess and dQ kernels have no causal form."""
    base = {"forward_lse": "flash_attention_fwd_lse", "preprocess": "flash_attention_bwd_preprocess",
            "backward": "flash_attention_bwd", "dq_convert": "flash_attention_bwd_dq"}[kind]
    return base + _suffix(dtype, d, causal and kind in ("forward_lse", "backward"))


_FWD = Template("""\
// Attention forward for training$what: Q, K, V, O are [B*H, L, $D] $T tensors, LSE is
// [B*H, L] f32 (the row log-sum-exp in log2 units of the scaled scores, m_i + log2(l_i): what
// the backward kernel subtracts before its exp2). One program per (query block of $BM,
// batch*head); grid (cdiv(L, $BM), B*H). Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%q_desc: !tile.desc<tensor<${BM}x${D}x$T>>, %k_desc: !tile.desc<tensor<${BN}x${D}x$T>>,
                   %v_desc: !tile.desc<tensor<${BN}x${D}x$T>>, %o_desc: !tile.desc<tensor<${BM}x${D}x$T>>,
                   %lse_ptr: !tile.ptr<f32>, %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = $W : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant $BM : i32
    %Bn = arith.constant $BN : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<${BM}x${D}x$T>> -> tensor<${BM}x${D}x$T>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_v = tile.splat %qk_scale : f32 -> tensor<${BM}xf32>
    %scale_t = tile.splat %qk_scale : f32 -> tensor<${BM}x${BN}xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<${BM}xf32>
    %l0 = arith.constant dense<0.000000e+00> : tensor<${BM}xf32>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<${BM}x${D}xf32>
    %zero_qk = arith.constant dense<0.000000e+00> : tensor<${BM}x${BN}xf32>
    %neg_inf = arith.constant dense<0xFF800000> : tensor<${BM}x${BN}xf32>
    %rows = tile.make_range 0 to $BM : tensor<${BM}xi32>
    %cols = tile.make_range 0 to $BN : tensor<${BN}xi32>
    %q_off_v = tile.splat %q_off : i32 -> tensor<${BM}xi32>
    %offs_m = arith.addi %q_off_v, %rows : tensor<${BM}xi32>
$fwd_bounds
    %r:4 = scf.for %j = %c0 to %n_tiles step %c1
        iter_args(%m_i = %m0, %l_i = %l0, %acc = %acc0, %kv_off = %c0)
        -> (tensor<${BM}xf32>, tensor<${BM}xf32>, tensor<${BM}x${D}xf32>, i32) : i32 {
      %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<${BN}x${D}x$T>> -> tensor<${BN}x${D}x$T>
      %kt = tile.trans %k [1, 0] : tensor<${BN}x${D}x$T> -> tensor<${D}x${BN}x$T>
      %qk_raw = tile.dot %q, %kt, %zero_qk : tensor<${BM}x${D}x$T>, tensor<${D}x${BN}x$T> -> tensor<${BM}x${BN}xf32>
      %kv_off_v = tile.splat %kv_off : i32 -> tensor<${BN}xi32>
      %offs_n = arith.addi %kv_off_v, %cols : tensor<${BN}xi32>
$fwd_mask
      %qk_m = arith.select %keep, %qk_raw, %neg_inf : tensor<${BM}x${BN}xi1>, tensor<${BM}x${BN}xf32>
      %rowmax = tile.reduce max %qk_m, 1 : tensor<${BM}x${BN}xf32> -> tensor<${BM}xf32>
      %rowmax_s = arith.mulf %rowmax, %scale_v : tensor<${BM}xf32>
      %m_ij = arith.maximumf %m_i, %rowmax_s : tensor<${BM}xf32>
      %m_e = tile.expand_dims %m_ij, 1 : tensor<${BM}xf32> -> tensor<${BM}x1xf32>
      %m_b = tile.broadcast %m_e : tensor<${BM}x1xf32> -> tensor<${BM}x${BN}xf32>
      %qk = arith.mulf %qk_m, %scale_t : tensor<${BM}x${BN}xf32>
      %qk_c = arith.subf %qk, %m_b : tensor<${BM}x${BN}xf32>
      %p = math.exp2 %qk_c : tensor<${BM}x${BN}xf32>
      %l_ij = tile.reduce sum %p, 1 : tensor<${BM}x${BN}xf32> -> tensor<${BM}xf32>
      %m_diff = arith.subf %m_i, %m_ij : tensor<${BM}xf32>
      %alpha = math.exp2 %m_diff : tensor<${BM}xf32>
      %l_scaled = arith.mulf %l_i, %alpha : tensor<${BM}xf32>
      %l_new = arith.addf %l_scaled, %l_ij : tensor<${BM}xf32>
      %alpha_e = tile.expand_dims %alpha, 1 : tensor<${BM}xf32> -> tensor<${BM}x1xf32>
      %alpha_b = tile.broadcast %alpha_e : tensor<${BM}x1xf32> -> tensor<${BM}x${D}xf32>
      %acc_s = arith.mulf %acc, %alpha_b : tensor<${BM}x${D}xf32>
      %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<${BN}x${D}x$T>> -> tensor<${BN}x${D}x$T>
      %p16 = arith.truncf %p : tensor<${BM}x${BN}xf32> to tensor<${BM}x${BN}x$T>
      %acc_new = tile.dot %p16, %v, %acc_s : tensor<${BM}x${BN}x$T>, tensor<${BN}x${D}x$T> -> tensor<${BM}x${D}xf32>
      %kv_next = arith.addi %kv_off, %Bn : i32
      scf.yield %m_ij, %l_new, %acc_new, %kv_next : tensor<${BM}xf32>, tensor<${BM}xf32>, tensor<${BM}x${D}xf32>, i32
    }
    %l_e = tile.expand_dims %r#1, 1 : tensor<${BM}xf32> -> tensor<${BM}x1xf32>
    %l_b = tile.broadcast %l_e : tensor<${BM}x1xf32> -> tensor<${BM}x${D}xf32>
    %o = arith.divf %r#2, %l_b : tensor<${BM}x${D}xf32>
    %o16 = arith.truncf %o : tensor<${BM}x${D}xf32> to tensor<${BM}x${D}x$T>
    tile.desc_store %o_desc[%bh, %q_off, %c0], %o16 : !tile.desc<tensor<${BM}x${D}x$T>>
    // LSE = m_i + log2(l_i), stored for the rows below L
    %log_l = math.log2 %r#1 : tensor<${BM}xf32>
    %lse = arith.addf %r#0, %log_l : tensor<${BM}xf32>
    %row0 = arith.muli %bh, %L : i32
    %lse_row = tile.addptr %lse_ptr, %row0 : !tile.ptr<f32>, i32
    %lse_base = tile.splat %lse_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
    %lse_ptrs = tile.addptr %lse_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
    %L_m = tile.splat %L : i32 -> tensor<${BM}xi32>
    %in_m = arith.cmpi slt, %offs_m, %L_m : tensor<${BM}xi32>
    tile.store %lse_ptrs, %lse, %in_m : tensor<${BM}x!tile.ptr<f32>>
    func.return
  }
}
""")

_FWD_BOUNDS = """\
    %L_n = tile.splat %L : i32 -> tensor<${BN}xi32>
    %n_tiles = arith.ceildivsi %L, %Bn : i32"""

_FWD_MASK = """\
      // scores of keys past L (zeros read past the end of this head) are -inf
      %in_n = arith.cmpi slt, %offs_n, %L_n : tensor<${BN}xi32>
      %in_n2 = tile.expand_dims %in_n, 0 : tensor<${BN}xi1> -> tensor<1x${BN}xi1>
      %keep = tile.broadcast %in_n2 : tensor<1x${BN}xi1> -> tensor<${BM}x${BN}xi1>"""

_FWD_BOUNDS_CAUSAL = """\
    %offs_m2 = tile.expand_dims %offs_m, 1 : tensor<${BM}xi32> -> tensor<${BM}x1xi32>
    %offs_mb = tile.broadcast %offs_m2 : tensor<${BM}x1xi32> -> tensor<${BM}x${BN}xi32>
    // the key blocks up to the one holding this block's last query (and not past L)
    %last_q = arith.addi %q_off, %Bm : i32
    %diag = arith.ceildivsi %last_q, %Bn : i32
    %all_tiles = arith.ceildivsi %L, %Bn : i32
    %n_tiles = arith.minsi %diag, %all_tiles : i32"""

_FWD_MASK_CAUSAL = """\
      // scores above the diagonal are -inf (which also masks the keys past L of every row below L)
      %offs_n2 = tile.expand_dims %offs_n, 0 : tensor<${BN}xi32> -> tensor<1x${BN}xi32>
      %offs_nb = tile.broadcast %offs_n2 : tensor<1x${BN}xi32> -> tensor<${BM}x${BN}xi32>
      %keep = arith.cmpi sge, %offs_mb, %offs_nb : tensor<${BM}x${BN}xi32>"""


def _subst(template: Template, dtype: str, d: int, **values) -> str:
    values = {k: str(v) for k, v in values.items()}
    return template.substitute(T=dtype, D=str(d), **values)


def forward_lse(dtype: str = "f16", d: int = 128, causal: bool = False, block_m: int = 128, block_n: int = 128,
                num_warps: int = 8) -> str:
    """MLIR text of the forward kernel that stores O and LSE (module docstring)."""
    _check(dtype, d, block_m, block_n)
    blocks = dict(BM=block_m, BN=block_n)
    bounds = Template(_FWD_BOUNDS_CAUSAL if causal else _FWD_BOUNDS).substitute(**blocks)
    mask = Template(_FWD_MASK_CAUSAL if causal else _FWD_MASK).substitute(**blocks)
    what = " (causal)" if causal else ""
    return _subst(_FWD, dtype, d, name=kernel_name("forward_lse", dtype, d, causal), what=what, W=num_warps,
                  fwd_bounds=bounds, fwd_mask=mask, **blocks)


_PRE = Template("""\
// Attention backward, preprocess: Delta = rowsum(dO * O) in f32. O and dO are [B*H, L, $D] $T
// tensors (read $DC columns at a time), Delta is [B*H, L] f32, stored below L. One program
// per (query block of $BM, batch*head); grid (cdiv(L, $BM), B*H).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%o_desc: !tile.desc<tensor<${BM}x${DC}x$T>>, %do_desc: !tile.desc<tensor<${BM}x${DC}x$T>>,
                   %delta_ptr: !tile.ptr<f32>, %L: i32)
      attributes {tile.kernel, tile.num_warps = $W : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant $BM : i32
    %Dc = arith.constant $DC : i32
    %chunks = arith.constant $chunks : i32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<${BM}xf32>
    %delta = scf.for %c = %c0 to %chunks step %c1 iter_args(%acc = %zero) -> (tensor<${BM}xf32>) : i32 {
      %col = arith.muli %c, %Dc : i32
      %o = tile.desc_load %o_desc[%bh, %q_off, %col] : !tile.desc<tensor<${BM}x${DC}x$T>> -> tensor<${BM}x${DC}x$T>
      %do = tile.desc_load %do_desc[%bh, %q_off, %col] : !tile.desc<tensor<${BM}x${DC}x$T>> -> tensor<${BM}x${DC}x$T>
      %o32 = arith.extf %o : tensor<${BM}x${DC}x$T> to tensor<${BM}x${DC}xf32>
      %do32 = arith.extf %do : tensor<${BM}x${DC}x$T> to tensor<${BM}x${DC}xf32>
      %prod = arith.mulf %o32, %do32 : tensor<${BM}x${DC}xf32>
      %part = tile.reduce sum %prod, 1 : tensor<${BM}x${DC}xf32> -> tensor<${BM}xf32>
      %acc_new = arith.addf %acc, %part : tensor<${BM}xf32>
      scf.yield %acc_new : tensor<${BM}xf32>
    }
    %rows = tile.make_range 0 to $BM : tensor<${BM}xi32>
    %q_off_v = tile.splat %q_off : i32 -> tensor<${BM}xi32>
    %offs_m = arith.addi %q_off_v, %rows : tensor<${BM}xi32>
    %L_m = tile.splat %L : i32 -> tensor<${BM}xi32>
    %in_m = arith.cmpi slt, %offs_m, %L_m : tensor<${BM}xi32>
    %row0 = arith.muli %bh, %L : i32
    %delta_row = tile.addptr %delta_ptr, %row0 : !tile.ptr<f32>, i32
    %delta_base = tile.splat %delta_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
    %delta_ptrs = tile.addptr %delta_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
    tile.store %delta_ptrs, %delta, %in_m : tensor<${BM}x!tile.ptr<f32>>
    func.return
  }
}
""")


def preprocess(dtype: str = "f16", d: int = 128, block_m: int = 128, num_warps: int = 4) -> str:
    """MLIR text of the preprocess kernel Delta = rowsum(dO * O) (module docstring)."""
    dc = min(d, 64)
    _check(dtype, d, block_m, dc)
    return _subst(_PRE, dtype, d, name=kernel_name("preprocess", dtype, d), BM=block_m, DC=dc, chunks=d // dc,
                  W=num_warps)


_BWD = Template("""\
// Attention backward$what, the main kernel (FlashAttention-2/3's algorithm): one program per key
// block K_j, V_j of $BN keys (kept for the whole loop), grid (cdiv(L, $BN), B*H); a loop over the
// query blocks of $BM$loop_what. Q, K, V, dO, dK, dV are [B*H, L, $D] $T tensors; LSE (log2 units,
// as flash_attention_fwd_lse stores it) and Delta = rowsum(dO * O) are [B*H, L] f32; dQ is an
// f32 [B*H, L, $D] buffer the kernel adds dS K_j into (unscaled: flash_attention_bwd_dq scales it).
//   Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i)   (0 for queries past L$mask_what)
//   dPt = V_j dO_i^T,  dSt = Pt * (dPt - Delta_i)
//   dV_j += Pt dO_i,  dK_j += dSt Q_i,  $dq_what, atomically)
//   dK_j = sm_scale * dK_j
// Keys past L read zeros (their dK, dV rows are not stored; their dQ terms multiply zero rows of K).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%q_desc: !tile.desc<tensor<${BM}x${D}x$T>>, %k_desc: !tile.desc<tensor<${BN}x${D}x$T>>,
                   %v_desc: !tile.desc<tensor<${BN}x${D}x$T>>, %do_desc: !tile.desc<tensor<${BM}x${D}x$T>>,
                   %dk_desc: !tile.desc<tensor<${BN}x${D}x$T>>, %dv_desc: !tile.desc<tensor<${BN}x${D}x$T>>,
                   %lse_ptr: !tile.ptr<f32>, %delta_ptr: !tile.ptr<f32>, %dq_ptr: !tile.ptr<f32>,
                   %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = $W : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant $BM : i32
    %Bn = arith.constant $BN : i32
    %Dh = arith.constant $D : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_n = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %kv_off = arith.muli %start_n, %Bn : i32
    %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<${BN}x${D}x$T>> -> tensor<${BN}x${D}x$T>
    %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<${BN}x${D}x$T>> -> tensor<${BN}x${D}x$T>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_t = tile.splat %qk_scale : f32 -> tensor<${BN}x${BM}xf32>
    %zero_s = arith.constant dense<0.000000e+00> : tensor<${BN}x${BM}xf32>
    %zero_kv = arith.constant dense<0.000000e+00> : tensor<${BN}x${D}xf32>
    %rows_m = tile.make_range 0 to $BM : tensor<${BM}xi32>
    %cols_d = tile.make_range 0 to $D : tensor<${D}xi32>
    %L_m = tile.splat %L : i32 -> tensor<${BM}xi32>
    // this head's rows of LSE, Delta (row bh of [B*H, L]) and dQ (slice bh of [B*H, L, d])
    %row0 = arith.muli %bh, %L : i32
    %lse_row = tile.addptr %lse_ptr, %row0 : !tile.ptr<f32>, i32
    %delta_row = tile.addptr %delta_ptr, %row0 : !tile.ptr<f32>, i32
    %elem0 = arith.muli %row0, %Dh : i32
    %dq_head = tile.addptr %dq_ptr, %elem0 : !tile.ptr<f32>, i32
$dq_setup
$bwd_setup
    %n_q = arith.ceildivsi %L, %Bm : i32
    %r:2 = scf.for %i = %i_start to %n_q step %c1 iter_args(%dk = %zero_kv, %dv = %zero_kv)
        -> (tensor<${BN}x${D}xf32>, tensor<${BN}x${D}xf32>) : i32 {
      %q_off = arith.muli %i, %Bm : i32
      %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<${BM}x${D}x$T>> -> tensor<${BM}x${D}x$T>
      %do = tile.desc_load %do_desc[%bh, %q_off, %c0] : !tile.desc<tensor<${BM}x${D}x$T>> -> tensor<${BM}x${D}x$T>
      %q_off_v = tile.splat %q_off : i32 -> tensor<${BM}xi32>
      %offs_m = arith.addi %q_off_v, %rows_m : tensor<${BM}xi32>
      %in_m = arith.cmpi slt, %offs_m, %L_m : tensor<${BM}xi32>
      %lse_base = tile.splat %lse_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
      %lse_ptrs = tile.addptr %lse_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
      %lse = tile.load %lse_ptrs, %in_m : tensor<${BM}x!tile.ptr<f32>> -> tensor<${BM}xf32>
      %delta_base = tile.splat %delta_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
      %delta_ptrs = tile.addptr %delta_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
      %delta = tile.load %delta_ptrs, %in_m : tensor<${BM}x!tile.ptr<f32>> -> tensor<${BM}xf32>
      // Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i), masked
      %qt = tile.trans %q [1, 0] : tensor<${BM}x${D}x$T> -> tensor<${D}x${BM}x$T>
      %st = tile.dot %k, %qt, %zero_s : tensor<${BN}x${D}x$T>, tensor<${D}x${BM}x$T> -> tensor<${BN}x${BM}xf32>
      %st_s = arith.mulf %st, %scale_t : tensor<${BN}x${BM}xf32>
      %lse_e = tile.expand_dims %lse, 0 : tensor<${BM}xf32> -> tensor<1x${BM}xf32>
      %lse_b = tile.broadcast %lse_e : tensor<1x${BM}xf32> -> tensor<${BN}x${BM}xf32>
      %st_c = arith.subf %st_s, %lse_b : tensor<${BN}x${BM}xf32>
      %pt_all = math.exp2 %st_c : tensor<${BN}x${BM}xf32>
      %in_m2 = tile.expand_dims %in_m, 0 : tensor<${BM}xi1> -> tensor<1x${BM}xi1>
      %in_mb = tile.broadcast %in_m2 : tensor<1x${BM}xi1> -> tensor<${BN}x${BM}xi1>
$bwd_mask      %pt = arith.select %$keep, %pt_all, %zero_s : tensor<${BN}x${BM}xi1>, tensor<${BN}x${BM}xf32>
      // dV_j += Pt dO_i
      %pt16 = arith.truncf %pt : tensor<${BN}x${BM}xf32> to tensor<${BN}x${BM}x$T>
      %dv_new = tile.dot %pt16, %do, %dv : tensor<${BN}x${BM}x$T>, tensor<${BM}x${D}x$T> -> tensor<${BN}x${D}xf32>
      // dSt = Pt * (V_j dO_i^T - Delta_i)
      %dot = tile.trans %do [1, 0] : tensor<${BM}x${D}x$T> -> tensor<${D}x${BM}x$T>
      %dpt = tile.dot %v, %dot, %zero_s : tensor<${BN}x${D}x$T>, tensor<${D}x${BM}x$T> -> tensor<${BN}x${BM}xf32>
      %delta_e = tile.expand_dims %delta, 0 : tensor<${BM}xf32> -> tensor<1x${BM}xf32>
      %delta_b = tile.broadcast %delta_e : tensor<1x${BM}xf32> -> tensor<${BN}x${BM}xf32>
      %dpt_c = arith.subf %dpt, %delta_b : tensor<${BN}x${BM}xf32>
      %dst = arith.mulf %pt, %dpt_c : tensor<${BN}x${BM}xf32>
      %dst16 = arith.truncf %dst : tensor<${BN}x${BM}xf32> to tensor<${BN}x${BM}x$T>
      // dK_j += dSt Q_i
      %dk_new = tile.dot %dst16, %q, %dk : tensor<${BN}x${BM}x$T>, tensor<${BM}x${D}x$T> -> tensor<${BN}x${D}xf32>
$dq_body
      scf.yield %dk_new, %dv_new : tensor<${BN}x${D}xf32>, tensor<${BN}x${D}xf32>
    }
    %scale_kv = tile.splat %sm_scale : f32 -> tensor<${BN}x${D}xf32>
    %dk_s = arith.mulf %r#0, %scale_kv : tensor<${BN}x${D}xf32>
    %dk16 = arith.truncf %dk_s : tensor<${BN}x${D}xf32> to tensor<${BN}x${D}x$T>
    tile.desc_store %dk_desc[%bh, %kv_off, %c0], %dk16 : !tile.desc<tensor<${BN}x${D}x$T>>
    %dv16 = arith.truncf %r#1 : tensor<${BN}x${D}xf32> to tensor<${BN}x${D}x$T>
    tile.desc_store %dv_desc[%bh, %kv_off, %c0], %dv16 : !tile.desc<tensor<${BN}x${D}x$T>>
    func.return
  }
}
""")

_BWD_SETUP = """\
    %i_start = arith.constant 0 : i32"""

_BWD_MASK = ""

_BWD_SETUP_CAUSAL = """\
    %rows_n = tile.make_range 0 to $BN : tensor<${BN}xi32>
    %kv_off_v = tile.splat %kv_off : i32 -> tensor<${BN}xi32>
    %offs_n = arith.addi %kv_off_v, %rows_n : tensor<${BN}xi32>
    %offs_n2 = tile.expand_dims %offs_n, 1 : tensor<${BN}xi32> -> tensor<${BN}x1xi32>
    %offs_nb = tile.broadcast %offs_n2 : tensor<${BN}x1xi32> -> tensor<${BN}x${BM}xi32>
    // the first query block that sees a key of this block: the one holding query kv_off
    %i_start = arith.divsi %kv_off, %Bm : i32"""

_BWD_MASK_CAUSAL = """\
      %offs_m2 = tile.expand_dims %offs_m, 0 : tensor<${BM}xi32> -> tensor<1x${BM}xi32>
      %offs_mb = tile.broadcast %offs_m2 : tensor<1x${BM}xi32> -> tensor<${BN}x${BM}xi32>
      %seen = arith.cmpi sge, %offs_mb, %offs_nb : tensor<${BN}x${BM}xi32>
      %keep = arith.andi %seen, %in_mb : tensor<${BN}x${BM}xi1>
"""


_DQ_SETUP = """\
    // offsets of a BM x d block of dQ: row * d + column
    %zero_q = arith.constant dense<0.000000e+00> : tensor<${BM}x${D}xf32>
    %Dh_v = tile.splat %Dh : i32 -> tensor<${BM}xi32>
    %row_elems = arith.muli %rows_m, %Dh_v : tensor<${BM}xi32>
    %row_e = tile.expand_dims %row_elems, 1 : tensor<${BM}xi32> -> tensor<${BM}x1xi32>
    %row_b = tile.broadcast %row_e : tensor<${BM}x1xi32> -> tensor<${BM}x${D}xi32>
    %col_e = tile.expand_dims %cols_d, 0 : tensor<${D}xi32> -> tensor<1x${D}xi32>
    %col_b = tile.broadcast %col_e : tensor<1x${D}xi32> -> tensor<${BM}x${D}xi32>
    %dq_offs = arith.addi %row_b, %col_b : tensor<${BM}x${D}xi32>"""

_DQ_BODY = """\
      // dQ_i += dS K_j, added into the f32 buffer (rows below L)
      %ds16 = tile.trans %dst16 [1, 0] : tensor<${BN}x${BM}x$T> -> tensor<${BM}x${BN}x$T>
      %dq_i = tile.dot %ds16, %k, %zero_q : tensor<${BM}x${BN}x$T>, tensor<${BN}x${D}x$T> -> tensor<${BM}x${D}xf32>
      %q_elem = arith.muli %q_off, %Dh : i32
      %dq_blk = tile.addptr %dq_head, %q_elem : !tile.ptr<f32>, i32
      %dq_base = tile.splat %dq_blk : !tile.ptr<f32> -> tensor<${BM}x${D}x!tile.ptr<f32>>
      %dq_ptrs = tile.addptr %dq_base, %dq_offs : tensor<${BM}x${D}x!tile.ptr<f32>>, tensor<${BM}x${D}xi32>
      %in_q2 = tile.expand_dims %in_m, 1 : tensor<${BM}xi1> -> tensor<${BM}x1xi1>
      %in_q = tile.broadcast %in_q2 : tensor<${BM}x1xi1> -> tensor<${BM}x${D}xi1>
      %old = tile.atomic_add %dq_ptrs, %dq_i, %in_q : tensor<${BM}x${D}x!tile.ptr<f32>>, tensor<${BM}x${D}xf32> -> tensor<${BM}x${D}xf32>"""

# dQ_i^T = K_j^T dS^T (d x BM): the same sum with d as the dot's M, for query blocks too small
# to be the M of the consumer's warp groups; added through transposed offsets.
_DQT_SETUP = """\
    // offsets of the d x BM block of dQ^T: row (query) * d + column
    %zero_qt = arith.constant dense<0.000000e+00> : tensor<${D}x${BM}xf32>
    %Dh_v = tile.splat %Dh : i32 -> tensor<${BM}xi32>
    %row_elems = arith.muli %rows_m, %Dh_v : tensor<${BM}xi32>
    %row_e = tile.expand_dims %row_elems, 0 : tensor<${BM}xi32> -> tensor<1x${BM}xi32>
    %row_b = tile.broadcast %row_e : tensor<1x${BM}xi32> -> tensor<${D}x${BM}xi32>
    %col_e = tile.expand_dims %cols_d, 1 : tensor<${D}xi32> -> tensor<${D}x1xi32>
    %col_b = tile.broadcast %col_e : tensor<${D}x1xi32> -> tensor<${D}x${BM}xi32>
    %dqt_offs = arith.addi %row_b, %col_b : tensor<${D}x${BM}xi32>"""

_DQT_BODY = """\
      // dQ_i^T += K_j^T dS^T, added into the f32 buffer (queries below L)
      %kt = tile.trans %k [1, 0] : tensor<${BN}x${D}x$T> -> tensor<${D}x${BN}x$T>
      %dqt_i = tile.dot %kt, %dst16, %zero_qt : tensor<${D}x${BN}x$T>, tensor<${BN}x${BM}x$T> -> tensor<${D}x${BM}xf32>
      %q_elem = arith.muli %q_off, %Dh : i32
      %dq_blk = tile.addptr %dq_head, %q_elem : !tile.ptr<f32>, i32
      %dq_base = tile.splat %dq_blk : !tile.ptr<f32> -> tensor<${D}x${BM}x!tile.ptr<f32>>
      %dq_ptrs = tile.addptr %dq_base, %dqt_offs : tensor<${D}x${BM}x!tile.ptr<f32>>, tensor<${D}x${BM}xi32>
      %in_q2 = tile.expand_dims %in_m, 0 : tensor<${BM}xi1> -> tensor<1x${BM}xi1>
      %in_q = tile.broadcast %in_q2 : tensor<1x${BM}xi1> -> tensor<${D}x${BM}xi1>
      %old = tile.atomic_add %dq_ptrs, %dqt_i, %in_q : tensor<${D}x${BM}x!tile.ptr<f32>>, tensor<${D}x${BM}xf32> -> tensor<${D}x${BM}xf32>"""


def backward(dtype: str = "f16", d: int = 128, causal: bool = False, block_m: int | None = None,
             block_n: int = 128, num_warps: int = 8, dq_transposed: bool | None = None) -> str:
    """MLIR text of the main backward kernel (module docstring): `block_n` keys per program,
    `block_m` queries per iteration (default: FlashAttention-3's tiles, 64 for d >= 128, where
    dK, dV, S^T, dP^T and dQ of 128 queries would not fit the registers, else 128). dQ_i is
    computed as dS K_j, or with `dq_transposed` as (K_j^T dS^T)^T, whose M is d instead of
    block_m (default: where block_m is not a multiple of the 64 rows of each consumer warp group)."""
    block_m = block_m or (64 if d >= 128 else 128)
    _check(dtype, d, block_m, block_n)
    if dq_transposed is None:
        dq_transposed = block_m % (64 * max(num_warps // 4, 1)) != 0
    blocks = dict(BM=block_m, BN=block_n)
    setup = Template(_BWD_SETUP_CAUSAL if causal else _BWD_SETUP).substitute(**blocks)
    mask = Template(_BWD_MASK_CAUSAL if causal else _BWD_MASK).substitute(**blocks)
    dq_setup = _DQT_SETUP if dq_transposed else _DQ_SETUP
    dq_body = _DQT_BODY if dq_transposed else _DQ_BODY
    dq_what = "dQ_i^T += K_j^T dSt  (through transposed offsets" if dq_transposed else "dQ_i += dS K_j  (dS = dSt^T"
    return _subst(_BWD, dtype, d, name=kernel_name("backward", dtype, d, causal), W=num_warps,
                  what=" (causal)" if causal else "",
                  loop_what=" from the one holding key kv_off (causal)" if causal else "",
                  mask_what=" and above the diagonal" if causal else "",
                  dq_what=dq_what,
                  dq_setup=Template(dq_setup).substitute(T=dtype, D=d, **blocks),
                  dq_body=Template(dq_body).substitute(T=dtype, D=d, **blocks),
                  bwd_setup=setup, bwd_mask=mask, keep="keep" if causal else "in_mb", **blocks)


_DQ = Template("""\
// Attention backward, last step: dQ = sm_scale * dQacc converted to $T. dQacc is the f32
// [B*H, L, $D] buffer flash_attention_bwd added into, dQ a [B*H, L, $D] $T tensor ($DC columns at a
// time). One program per (query block of $BM, batch*head); grid (cdiv(L, $BM), B*H).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%acc_desc: !tile.desc<tensor<${BM}x${DC}xf32>>, %dq_desc: !tile.desc<tensor<${BM}x${DC}x$T>>,
                   %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = $W : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant $BM : i32
    %Dc = arith.constant $DC : i32
    %chunks = arith.constant $chunks : i32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %scale = tile.splat %sm_scale : f32 -> tensor<${BM}x${DC}xf32>
    scf.for %c = %c0 to %chunks step %c1 : i32 {
      %col = arith.muli %c, %Dc : i32
      %acc = tile.desc_load %acc_desc[%bh, %q_off, %col] : !tile.desc<tensor<${BM}x${DC}xf32>> -> tensor<${BM}x${DC}xf32>
      %dq = arith.mulf %acc, %scale : tensor<${BM}x${DC}xf32>
      %dq16 = arith.truncf %dq : tensor<${BM}x${DC}xf32> to tensor<${BM}x${DC}x$T>
      tile.desc_store %dq_desc[%bh, %q_off, %col], %dq16 : !tile.desc<tensor<${BM}x${DC}x$T>>
    }
    func.return
  }
}
""")


def dq_convert(dtype: str = "f16", d: int = 128, block_m: int = 128, num_warps: int = 4) -> str:
    """MLIR text of the kernel that scales and converts the f32 dQ buffer (module docstring)."""
    dc = min(d, 64)
    _check(dtype, d, block_m, dc)
    return _subst(_DQ, dtype, d, name=kernel_name("dq_convert", dtype, d), BM=block_m, DC=dc, chunks=d // dc,
                  W=num_warps)


KINDS = {"forward_lse": forward_lse, "preprocess": preprocess, "backward": backward, "dq_convert": dq_convert}


def kernel_text(kind: str, dtype: str = "f16", d: int = 128, causal: bool = False, **blocks) -> str:
    """The MLIR text of kernel `kind` (a key of KINDS) for (dtype, head dim, causal); `blocks`
    are the generator's keyword arguments (block_m, block_n, num_warps) where not the defaults."""
    fn = KINDS[kind]
    if kind in ("forward_lse", "backward"):
        return fn(dtype, d, causal, **blocks)
    return fn(dtype, d, **blocks)


# The variants kept in examples/kernels (the defaults' block sizes).
BUNDLED = [("forward_lse", "f16", 128, False), ("forward_lse", "f16", 128, True),
           ("preprocess", "f16", 128, False), ("dq_convert", "f16", 128, False),
           ("backward", "f16", 128, False), ("backward", "f16", 128, True),
           ("backward", "f16", 64, False), ("backward", "bf16", 128, True)]


def bundled() -> dict[str, str]:
    """{file name: text} of the variants kept in examples/kernels."""
    return {f"{kernel_name(k, t, d, c)}.mlir": kernel_text(k, t, d, c) for k, t, d, c in BUNDLED}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="write the bundled attention-training kernels")
    ap.add_argument("--out", default="examples/kernels", help="folder to write them to")
    args = ap.parse_args(argv)
    for name, text in bundled().items():
        (Path(args.out) / name).write_text(text)
        print(Path(args.out) / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
