"""The `tile` kernels of attention training (FlashAttention-2/3's backward), as text:

- `forward_lse`: the forward (Triton tutorial's algorithm) that also stores LSE, the row
  log-sum-exp in log2 units of the scaled scores: LSE[m] = log2(sum_n exp2(S[m, n] *
  sm_scale * log2(e))) = m_i + log2(l_i), f32, [B*H, L];
- `preprocess`: Delta[m] = rowsum(dO * O), f32; in the default form (stats="tma") also LSE
  copied, both into [B*H, Lp] rows padded with zeros to Lp = L rounded up to 4 (TMA's 16-byte
  strides); in the first form (stats="ptr") Delta alone, [B*H, L];
- `backward`: one program per key block K_j, V_j (grid (cdiv(L, BN), B*H)); a loop over the
  query blocks i loads Q_i, dO_i, LSE_i, Delta_i; Pt = exp2(K_j Q_i^T * sm_scale * log2(e)
  - LSE), dPt = V_j dO_i^T, dSt = Pt * (dPt - Delta); dV_j += Pt dO_i, dK_j += dSt Q_i (the
  register tiles as the A operand) and dQ_i += dS K_j (dS = tile.trans of dSt; or dQ_i^T +=
  K_j^T dSt, whose M is d, where the query block is too small to be a dot's M), added with TMA's
  reduce-add (dq="tma": tile.desc_store add of the [d, BM] box of dQ^T into [B*H, d, Lp], or
  of dQ_i into [B*H, L, d]) or with tile.atomic_add through pointer tiles (dq="atomic", into
  [B*H, L, d]); LSE and Delta are [1, BM] TMA boxes of the padded rows (stats="tma": queries
  past L then add nothing, no mask) or masked pointer loads (stats="ptr"); dK is scaled by
  sm_scale at the end;
- `dq_convert`: dQ = sm_scale * (the f32 buffer, transposed back where it holds dQ^T),
  converted to f16 / bf16.

Q, K, V, O, dO, dQ, dK, dV are [B*H, L, d] arrays behind 3-D descriptors (TMA clips at each
head's L, so any L works: loads past L read zeros, stores past L are dropped). The main
kernel's variable parts are in attention_bwd_fragments.py; `form_options` gives each kernel's
options for one form. Each kernel is written as a Triton user
would write it; the block sizes are parameters (the interpreter tests use small ones), and
`python -m wsdialects.runtime.attention_bwd_kernels --out examples/kernels` writes the
bundled variants (a test checks they are what this module writes):

    text = backward(dtype="f16", d=128, causal=True)   # MLIR text of one kernel
"""

from __future__ import annotations

from string import Template

from wsdialects.runtime.attention_bwd_fragments import (
    _STAT_ARGS_PTR, _STAT_SETUP_PTR, _STAT_LOAD_PTR, _ST_C_PTR, _DPT_C_PTR, _P_MASK_PTR, _SEEN_PTR,
    _STAT_ARGS_TMA, _ST_C_TMA, _DPT_C_TMA, _P_MASK_TMA, _P_MASK_TMA_CAUSAL, _DQ_ARG_ATOMIC,
    _DQ_HEAD_ATOMIC, _DQ_SETUP, _DQ_BODY, _DQT_SETUP, _DQT_BODY, _DQ_ARG_TMA, _DQT_ARG_TMA, _DQ_SETUP_TMA,
    _DQT_SETUP_TMA, _DQ_BODY_TMA, _DQT_BODY_TMA, overlap_dots, lpt_order
)

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


# Both preprocess kernels: Delta (a row sum of dO * O over $DC-column chunks) of this program's
# $BM rows, and which of them lie below L (%in_m).
_DELTA_ROWS = """\
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
"""


_PRE = Template("""\
// Attention backward, preprocess: Delta = rowsum(dO * O) in f32. O and dO are [B*H, L, $D] $T
// tensors (read $DC columns at a time), Delta is [B*H, L] f32, stored below L. One program
// per (query block of $BM, batch*head); grid (cdiv(L, $BM), B*H).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%o_desc: !tile.desc<tensor<${BM}x${DC}x$T>>, %do_desc: !tile.desc<tensor<${BM}x${DC}x$T>>,
                   %delta_ptr: !tile.ptr<f32>, %L: i32)
""" + _DELTA_ROWS + """    %row0 = arith.muli %bh, %L : i32
    %delta_row = tile.addptr %delta_ptr, %row0 : !tile.ptr<f32>, i32
    %delta_base = tile.splat %delta_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
    %delta_ptrs = tile.addptr %delta_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
    tile.store %delta_ptrs, %delta, %in_m : tensor<${BM}x!tile.ptr<f32>>
    func.return
  }
}
""")


_PRE_PAD = Template("""\
// Attention backward, preprocess: Delta = rowsum(dO * O) in f32, and LSE copied, into rows padded
// to Lp (L rounded up to 4: 16-byte TMA strides) that flash_attention_bwd reads as [1, BM] boxes. O
// and dO are [B*H, L, $D] $T tensors (read $DC columns at a time, zeros past L), LSE the forward's
// [B*H, L] f32; LSEp and Delta are [B*H, Lp] f32, written below Lp (0 from L on). One program per
// (query block of $BM, batch*head); grid (cdiv(L, $BM), B*H).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%o_desc: !tile.desc<tensor<${BM}x${DC}x$T>>, %do_desc: !tile.desc<tensor<${BM}x${DC}x$T>>,
                   %lse_ptr: !tile.ptr<f32>, %lsep_ptr: !tile.ptr<f32>, %delta_ptr: !tile.ptr<f32>, %L: i32, %Lp: i32)
""" + _DELTA_ROWS + """    %Lp_m = tile.splat %Lp : i32 -> tensor<${BM}xi32>
    %in_p = arith.cmpi slt, %offs_m, %Lp_m : tensor<${BM}xi32>
    %row0 = arith.muli %bh, %L : i32
    %lse_row = tile.addptr %lse_ptr, %row0 : !tile.ptr<f32>, i32
    %lse_base = tile.splat %lse_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
    %lse_ptrs = tile.addptr %lse_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
    %lse = tile.load %lse_ptrs, %in_m : tensor<${BM}x!tile.ptr<f32>> -> tensor<${BM}xf32>
    %rowp = arith.muli %bh, %Lp : i32
    %lsep_row = tile.addptr %lsep_ptr, %rowp : !tile.ptr<f32>, i32
    %lsep_base = tile.splat %lsep_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
    %lsep_ptrs = tile.addptr %lsep_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
    tile.store %lsep_ptrs, %lse, %in_p : tensor<${BM}x!tile.ptr<f32>>
    %delta_row = tile.addptr %delta_ptr, %rowp : !tile.ptr<f32>, i32
    %delta_base = tile.splat %delta_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
    %delta_ptrs = tile.addptr %delta_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
    tile.store %delta_ptrs, %delta, %in_p : tensor<${BM}x!tile.ptr<f32>>
    func.return
  }
}
""")


def padded_length(L: int) -> int:
    """Lp: the padded row length of the LSE, Delta and dQ^T buffers of stats="tma" / dq="tma"
    (L rounded up to 4 f32: TMA's 16-byte strides)."""
    return -(-L // 4) * 4


def preprocess(dtype: str = "f16", d: int = 128, block_m: int = 128, num_warps: int = 4, stats: str = "tma") -> str:
    """MLIR text of the preprocess kernel Delta = rowsum(dO * O) (module docstring); with
    `stats="tma"` it also copies LSE, both into rows padded to Lp (main kernel's stats="tma")."""
    dc = min(d, 64)
    _check(dtype, d, block_m, dc)
    if stats not in STAT_FORMS:
        raise ValueError(f"stats must be one of {STAT_FORMS}, got {stats!r}")
    return _subst(_PRE_PAD if stats == "tma" else _PRE, dtype, d, name=kernel_name("preprocess", dtype, d),
                  BM=block_m, DC=dc, chunks=d // dc, W=num_warps)


_BWD = Template("""\
// Attention backward$what, the main kernel (FlashAttention-2/3's algorithm): one program per key
// block K_j, V_j of $BN keys (kept for the whole loop), grid (cdiv(L, $BN), B*H); a loop over the
// query blocks of $BM$loop_what. Q, K, V, dO, dK, dV are [B*H, L, $D] $T tensors; $stat_what
// $dq_buf (unscaled: flash_attention_bwd_dq scales it).
//   Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i)$p_what
//   dPt = V_j dO_i^T,  dSt = Pt * (dPt - Delta_i)
//   dV_j += Pt dO_i,  dK_j += dSt Q_i,  $dq_what)
//   dK_j = sm_scale * dK_j
// Keys past L read zeros (their dK, dV rows are not stored; their dQ terms multiply zero rows of K).$pad_what
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%q_desc: !tile.desc<tensor<${BM}x${D}x$T>>, %k_desc: !tile.desc<tensor<${BN}x${D}x$T>>,
                   %v_desc: !tile.desc<tensor<${BN}x${D}x$T>>, %do_desc: !tile.desc<tensor<${BM}x${D}x$T>>,
                   %dk_desc: !tile.desc<tensor<${BN}x${D}x$T>>, %dv_desc: !tile.desc<tensor<${BN}x${D}x$T>>,
                   $stat_args, $dq_arg,
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
$stat_setup$dq_setup
$bwd_setup
    %n_q = arith.ceildivsi %L, %Bm : i32
    %r:2 = scf.for %i = %i_start to %n_q step %c1 iter_args(%dk = %zero_kv, %dv = %zero_kv)
        -> (tensor<${BN}x${D}xf32>, tensor<${BN}x${D}xf32>) : i32 {
      %q_off = arith.muli %i, %Bm : i32
      %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<${BM}x${D}x$T>> -> tensor<${BM}x${D}x$T>
      %do = tile.desc_load %do_desc[%bh, %q_off, %c0] : !tile.desc<tensor<${BM}x${D}x$T>> -> tensor<${BM}x${D}x$T>
$stat_load      // Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i), masked
      %qt = tile.trans %q [1, 0] : tensor<${BM}x${D}x$T> -> tensor<${D}x${BM}x$T>
      %st = tile.dot %k, %qt, %zero_s : tensor<${BN}x${D}x$T>, tensor<${D}x${BM}x$T> -> tensor<${BN}x${BM}xf32>
$st_c$p_mask      // dV_j += Pt dO_i
      %pt16 = arith.truncf %pt : tensor<${BN}x${BM}xf32> to tensor<${BN}x${BM}x$T>
      %dv_new = tile.dot %pt16, %do, %dv : tensor<${BN}x${BM}x$T>, tensor<${BM}x${D}x$T> -> tensor<${BN}x${D}xf32>
      // dSt = Pt * (V_j dO_i^T - Delta_i)
      %dot = tile.trans %do [1, 0] : tensor<${BM}x${D}x$T> -> tensor<${D}x${BM}x$T>
      %dpt = tile.dot %v, %dot, %zero_s : tensor<${BN}x${D}x$T>, tensor<${D}x${BM}x$T> -> tensor<${BN}x${BM}xf32>
$dpt_c      %dst16 = arith.truncf %dst : tensor<${BN}x${BM}xf32> to tensor<${BN}x${BM}x$T>
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

_BWD_SETUP_CAUSAL = """\
    %rows_n = tile.make_range 0 to $BN : tensor<${BN}xi32>
    %kv_off_v = tile.splat %kv_off : i32 -> tensor<${BN}xi32>
    %offs_n = arith.addi %kv_off_v, %rows_n : tensor<${BN}xi32>
    %offs_n2 = tile.expand_dims %offs_n, 1 : tensor<${BN}xi32> -> tensor<${BN}x1xi32>
    %offs_nb = tile.broadcast %offs_n2 : tensor<${BN}x1xi32> -> tensor<${BN}x${BM}xi32>
    // the first query block that sees a key of this block: the one holding query kv_off
    %i_start = arith.divsi %kv_off, %Bm : i32"""

DQ_FORMS = ("tma", "atomic")
STAT_FORMS = ("tma", "ptr")


def default_block_m(d: int) -> int:
    """The main kernel's query block: FlashAttention-3's 64 for d >= 128 (dK, dV, S^T, dP^T and
    dQ of 128 queries would not fit the registers), else 128."""
    return 64 if d >= 128 else 128


def dq_is_transposed(d: int, block_m: int | None = None, num_warps: int = 8) -> bool:
    """Whether the main kernel computes dQ_i^T = K_j^T dS^T (d as the dot's M) rather than dQ_i:
    where the query block is not a multiple of the 64 rows of each consumer warp group."""
    block_m = block_m or default_block_m(d)
    return block_m % (64 * max(num_warps // 4, 1)) != 0


def backward(dtype: str = "f16", d: int = 128, causal: bool = False, block_m: int | None = None,
             block_n: int = 128, num_warps: int = 8, dq_transposed: bool | None = None,
             dq: str = "tma", stats: str = "tma", overlap: str | None = None, order: str = "plain") -> str:
    """MLIR text of the main backward kernel (module docstring): `block_n` keys per program,
    `block_m` queries per iteration (default_block_m). dQ_i is computed as dS K_j, or with
    `dq_transposed` as (K_j^T dS^T)^T (default: dq_is_transposed). `dq="tma"` adds it with TMA's
    reduce-add (tile.desc_store add; dQ^T into a [B*H, d, Lp] buffer), `dq="atomic"` with
    tile.atomic_add through pointer tiles into [B*H, L, d]; `stats="tma"` reads LSE and Delta as
    [1, block_m] boxes of padded [B*H, Lp] rows (the producer's loads; no mask at L),
    `stats="ptr"` as masked pointer loads of [B*H, L] rows. `overlap="fa3"`: the dots issued as
    FlashAttention-3 orders them and waited for where first needed; `overlap="dq-first"`: the
    same with dQ's dot issued before dK's and its reduce-add run while dK's is in flight;
    `overlap="pairs"`: only S^T with dP^T and dK with dQ overlapped (fragments.overlap_dots).
    `order="lpt"`: the programs in longest-first order, a `%group: i32` argument after
    `%sm_scale` (fragments.lpt_order)."""
    block_m = block_m or default_block_m(d)
    _check(dtype, d, block_m, block_n)
    if dq not in DQ_FORMS or stats not in STAT_FORMS:
        raise ValueError(f"dq must be one of {DQ_FORMS} and stats one of {STAT_FORMS}, got {dq!r}, {stats!r}")
    if dq == "atomic" and stats == "tma":
        raise ValueError("dq='atomic' masks its adds with the row mask of stats='ptr'")
    if dq_transposed is None:
        dq_transposed = dq_is_transposed(d, block_m, num_warps)
    blocks = dict(BM=block_m, BN=block_n)
    sub = lambda t: Template(t).substitute(T=dtype, D=d, **blocks)  # noqa: E731
    setup = sub(_BWD_SETUP_CAUSAL if causal else _BWD_SETUP)
    if stats == "ptr":
        stat_args, stat_setup, stat_load, st_c, dpt_c = (_STAT_ARGS_PTR, sub(_STAT_SETUP_PTR), sub(_STAT_LOAD_PTR),
                                                         _ST_C_PTR, _DPT_C_PTR)
        p_mask = Template(_P_MASK_PTR).safe_substitute(seen=sub(_SEEN_PTR) if causal else "",
                                                       keep="keep" if causal else "in_mb")
        stat_what = ("LSE (log2 units,\n// as flash_attention_fwd_lse stores it) and Delta = rowsum(dO * O) are "
                     "[B*H, L] f32 (masked loads);")
        p_what, pad_what = f"   (0 for queries past L{' and above the diagonal' if causal else ''})", ""
    else:  # LSE and Delta are loaded where they are used (in st_c, dpt_c)
        stat_args, stat_setup, stat_load, st_c, dpt_c = sub(_STAT_ARGS_TMA), "", "", _ST_C_TMA, _DPT_C_TMA
        p_mask = _P_MASK_TMA_CAUSAL if causal else _P_MASK_TMA
        stat_what = ("LSE (log2 units)\n// and Delta = rowsum(dO * O) are [B*H, Lp] f32 rows padded to Lp with "
                     "zeros (flash_attention_bwd_preprocess's);")
        p_what = "   (0 above the diagonal)" if causal else ""
        pad_what = ("\n// Queries past L read zero Q, dO, LSE and Delta rows: Pt = 1, dPt = 0, dSt = 0 there, "
                    "so they add nothing.")
    if dq == "atomic":
        dq_arg, dq_head = _DQ_ARG_ATOMIC, _DQ_HEAD_ATOMIC
        dq_setup, dq_body = (_DQT_SETUP, _DQT_BODY) if dq_transposed else (_DQ_SETUP, _DQ_BODY)
        dq_buf, how = f"dQ is an f32 [B*H, L, {d}] buffer the kernel adds dS K_j into", ", atomically"
    else:
        dq_arg, dq_head = (_DQT_ARG_TMA if dq_transposed else _DQ_ARG_TMA), ""
        dq_setup, dq_body = (_DQT_SETUP_TMA, _DQT_BODY_TMA) if dq_transposed else (_DQ_SETUP_TMA, _DQ_BODY_TMA)
        dq_buf = (f"dQ^T is an f32 [B*H, {d}, Lp] buffer (Lp = L rounded up to 4)" if dq_transposed
                  else f"dQ is an f32 [B*H, L, {d}] buffer") + " the kernel reduce-adds into"
        how = ", by TMA reduce-add"
    dq_what = ("dQ_i^T += K_j^T dSt  (through transposed offsets" if dq_transposed and dq == "atomic" else
               "dQ_i^T += K_j^T dSt  (a [d, BM] box" if dq_transposed else "dQ_i += dS K_j  (dS = dSt^T") + how
    text = _subst(_BWD, dtype, d, name=kernel_name("backward", dtype, d, causal), W=num_warps,
                  what=" (causal)" if causal else "",
                  loop_what=" from the one holding key kv_off (causal)" if causal else "",
                  stat_what=stat_what, dq_buf=dq_buf, p_what=p_what, pad_what=pad_what, dq_what=dq_what,
                  stat_args=sub(stat_args), dq_arg=sub(dq_arg), stat_setup=stat_setup,
                  dq_setup=dq_head + sub(dq_setup), dq_body=sub(dq_body), stat_load=stat_load,
                  p_mask=sub(p_mask), st_c=sub(st_c), dpt_c=sub(dpt_c), bwd_setup=setup, **blocks)
    if overlap not in (None, "fa3", "dq-first", "pairs"):
        raise ValueError(f"overlap must be 'fa3', 'dq-first', 'pairs' or None, got {overlap!r}")
    if order not in ("plain", "lpt"):
        raise ValueError(f"order must be 'plain' or 'lpt', got {order!r}")
    text = overlap_dots(text, hold_dv=overlap != "pairs", dq_first=overlap == "dq-first") if overlap else text
    return lpt_order(text) if order == "lpt" else text


_DQ = Template("""\
// Attention backward, last step: dQ = sm_scale * $what converted to $T. $header
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @$name(%acc_desc: !tile.desc<tensor<${acc_box}xf32>>, %dq_desc: !tile.desc<tensor<${BM}x${DC}x$T>>,
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
$acc_load
      %dq = arith.mulf %acc, %scale : tensor<${BM}x${DC}xf32>
      %dq16 = arith.truncf %dq : tensor<${BM}x${DC}xf32> to tensor<${BM}x${DC}x$T>
      tile.desc_store %dq_desc[%bh, %q_off, %col], %dq16 : !tile.desc<tensor<${BM}x${DC}x$T>>
    }
    func.return
  }
}
""")

# What differs between the dQ buffer as added (dQacc, [B*H, L, D]) and as reduce-added transposed
# (dQacc^T, [B*H, D, Lp]): the header's description, the load's box and the transpose after it.
_DQ_HEADER = """dQacc is the f32
// [B*H, L, $D] buffer flash_attention_bwd added into, dQ a [B*H, L, $D] $T tensor ($DC columns at a
// time). One program per (query block of $BM, batch*head); grid (cdiv(L, $BM), B*H)."""
_DQ_LOAD = """\
      %acc = tile.desc_load %acc_desc[%bh, %q_off, %col] : !tile.desc<tensor<${BM}x${DC}xf32>> -> tensor<${BM}x${DC}xf32>"""
_DQT_HEADER = """dQacc^T is the f32
// [B*H, $D, Lp] buffer flash_attention_bwd reduce-added dQ^T into, dQ a [B*H, L, $D] $T tensor ($DC
// columns at a time, stored below L). One program per (query block of $BM, batch*head); grid
// (cdiv(L, $BM), B*H)."""
_DQT_LOAD = """\
      %acct = tile.desc_load %acc_desc[%bh, %col, %q_off] : !tile.desc<tensor<${DC}x${BM}xf32>> -> tensor<${DC}x${BM}xf32>
      %acc = tile.trans %acct [1, 0] : tensor<${DC}x${BM}xf32> -> tensor<${BM}x${DC}xf32>"""


def dq_convert(dtype: str = "f16", d: int = 128, block_m: int = 128, num_warps: int = 4,
               transposed: bool = False) -> str:
    """MLIR text of the kernel that scales and converts the f32 dQ buffer (module docstring);
    `transposed`: the buffer holds dQ^T, [B*H, d, Lp] (the main kernel's dq="tma" with dQ^T)."""
    dc = min(d, 64)
    _check(dtype, d, block_m, dc)
    blocks = dict(T=dtype, D=d, BM=block_m, DC=dc)
    header, load = (_DQT_HEADER, _DQT_LOAD) if transposed else (_DQ_HEADER, _DQ_LOAD)
    return _subst(_DQ, dtype, d, name=kernel_name("dq_convert", dtype, d), BM=block_m, DC=dc, chunks=d // dc,
                  W=num_warps, what="dQacc^T" if transposed else "dQacc",
                  acc_box=f"{dc}x{block_m}" if transposed else f"{block_m}x{dc}",
                  header=Template(header).substitute(blocks), acc_load=Template(load).substitute(blocks))


KINDS = {"forward_lse": forward_lse, "preprocess": preprocess, "backward": backward, "dq_convert": dq_convert}


def kernel_text(kind: str, dtype: str = "f16", d: int = 128, causal: bool = False, **options) -> str:
    """The MLIR text of kernel `kind` (a key of KINDS) for (dtype, head dim, causal); `options`
    are the generator's keyword arguments (block sizes, num_warps, the forms of form_options)
    where not the defaults."""
    fn = KINDS[kind]
    if kind in ("forward_lse", "backward"):
        return fn(dtype, d, causal, **options)
    return fn(dtype, d, **options)


def form_options(kind: str, d: int, dq: str = "tma", stats: str = "tma", overlap: str | None = None,
                 order: str = "plain") -> dict:
    """The generator options of kernel `kind` in the backward of one form (dq, stats, overlap:
    see `backward`): the preprocess pads the row statistics for stats="tma", the dQ conversion
    reads a transposed buffer where the main kernel reduce-adds dQ^T."""
    return {"backward": {"dq": dq, "stats": stats, **({"overlap": overlap} if overlap else {}),
                         **({"order": order} if order != "plain" else {})},
            "preprocess": {"stats": stats},
            "dq_convert": {"transposed": dq == "tma" and dq_is_transposed(d)}}.get(kind, {})


# The variants kept in examples/kernels (the defaults' block sizes).
BUNDLED = [("forward_lse", "f16", 128, False), ("forward_lse", "f16", 128, True),
           ("preprocess", "f16", 128, False), ("dq_convert", "f16", 128, False),
           ("backward", "f16", 128, False), ("backward", "f16", 128, True),
           ("backward", "f16", 64, False), ("backward", "bf16", 128, True)]


def bundled() -> dict[str, str]:
    """{file name: text} of the variants kept in examples/kernels (the default form: dQ and the
    row statistics through TMA)."""
    return {f"{kernel_name(k, t, d, c)}.mlir": kernel_text(k, t, d, c, **form_options(k, d))
            for k, t, d, c in BUNDLED}


def main(argv=None) -> int:
    from wsdialects.runtime.bundled import write_bundled

    return write_bundled(bundled(), "attention-training", argv)


if __name__ == "__main__":
    raise SystemExit(main())
