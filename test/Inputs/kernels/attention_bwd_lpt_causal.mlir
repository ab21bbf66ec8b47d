// The causal attention backward's main kernel with its programs in longest-first order and dQ's
// dot before dK's: attention_bwd_kernels.backward("f16", 128, True, overlap="dq-first", order="lpt").
// Attention backward (causal), the main kernel (FlashAttention-2/3's algorithm): one program per key
// block K_j, V_j of 128 keys (kept for the whole loop), grid (cdiv(L, 128), B*H); a loop over the
// query blocks of 64 from the one holding key kv_off (causal). Q, K, V, dO, dK, dV are [B*H, L, 128] f16 tensors; LSE (log2 units)
// and Delta = rowsum(dO * O) are [B*H, Lp] f32 rows padded to Lp with zeros (flash_attention_bwd_preprocess's);
// dQ^T is an f32 [B*H, 128, Lp] buffer (Lp = L rounded up to 4) the kernel reduce-adds into (unscaled: flash_attention_bwd_dq scales it).
//   Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i)   (0 above the diagonal)
//   dPt = V_j dO_i^T,  dSt = Pt * (dPt - Delta_i)
//   dV_j += Pt dO_i,  dK_j += dSt Q_i,  dQ_i^T += K_j^T dSt  (a [d, BM] box, by TMA reduce-add)
//   dK_j = sm_scale * dK_j
// Keys past L read zeros (their dK, dV rows are not stored; their dQ terms multiply zero rows of K).
// Queries past L read zero Q, dO, LSE and Delta rows: Pt = 1, dPt = 0, dSt = 0 there, so they add nothing.
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @flash_attention_bwd_causal(%q_desc: !tile.desc<tensor<64x128xf16>>, %k_desc: !tile.desc<tensor<128x128xf16>>,
                   %v_desc: !tile.desc<tensor<128x128xf16>>, %do_desc: !tile.desc<tensor<64x128xf16>>,
                   %dk_desc: !tile.desc<tensor<128x128xf16>>, %dv_desc: !tile.desc<tensor<128x128xf16>>,
                   %lse_desc: !tile.desc<tensor<1x64xf32>>, %delta_desc: !tile.desc<tensor<1x64xf32>>, %dqt_desc: !tile.desc<tensor<128x64xf32>>,
                   %L: i32, %sm_scale: f32, %group: i32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 64 : i32
    %Bn = arith.constant 128 : i32
    %Dh = arith.constant 128 : i32
    %log2e = arith.constant 1.44269504 : f32
    %n_kb = tile.num_programs 0 : i32
    %n_bh = tile.num_programs 1 : i32
    %pid_x = tile.program_id 0 : i32
    %pid_y = tile.program_id 1 : i32
    %lin_y = arith.muli %pid_y, %n_kb : i32
    %lin = arith.addi %lin_y, %pid_x : i32
    %grp_n = arith.muli %group, %n_kb : i32
    %grp = arith.divsi %lin, %grp_n : i32
    %grp_0 = arith.muli %grp, %grp_n : i32
    %in_grp = arith.subi %lin, %grp_0 : i32
    %bh_0 = arith.muli %grp, %group : i32
    %bh_left = arith.subi %n_bh, %bh_0 : i32
    %heads = arith.minsi %group, %bh_left : i32
    %start_n = arith.divsi %in_grp, %heads : i32
    %kb_0 = arith.muli %start_n, %heads : i32
    %head = arith.subi %in_grp, %kb_0 : i32
    %bh = arith.addi %bh_0, %head : i32
    %kv_off = arith.muli %start_n, %Bn : i32
    %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x64xf32>
    %zero_s = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %zero_kv = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qt = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %rows_n = tile.make_range 0 to 128 : tensor<128xi32>
    %kv_off_v = tile.splat %kv_off : i32 -> tensor<128xi32>
    %offs_n = arith.addi %kv_off_v, %rows_n : tensor<128xi32>
    %offs_n2 = tile.expand_dims %offs_n, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %offs_nb = tile.broadcast %offs_n2 : tensor<128x1xi32> -> tensor<128x64xi32>
    // the first query block that sees a key of this block: the one holding query kv_off
    %i_start = arith.divsi %kv_off, %Bm : i32
    %n_q = arith.ceildivsi %L, %Bm : i32
    %r:2 = scf.for %i = %i_start to %n_q step %c1 iter_args(%dk = %zero_kv, %dv = %zero_kv)
        -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
      %q_off = arith.muli %i, %Bm : i32
      %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
      %do = tile.desc_load %do_desc[%bh, %q_off, %c0] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
      // Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i), masked
      %qt = tile.trans %q [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
      %st_f = mma.async_dot %k, %qt, %zero_s : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %dot = tile.trans %do [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
      %dpt_f = mma.async_dot %v, %dot, %zero_s : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %st = mma.wait %st_f {pending = 1} : tensor<128x64xf32>
      %lse_e = tile.desc_load %lse_desc[%bh, %q_off] : !tile.desc<tensor<1x64xf32>> -> tensor<1x64xf32>
      %nlse = arith.negf %lse_e : tensor<1x64xf32>
      %nlse_b = tile.broadcast %nlse : tensor<1x64xf32> -> tensor<128x64xf32>
      %st_c = math.fma %st, %scale_t, %nlse_b : tensor<128x64xf32>
      %pt_all = math.exp2 %st_c : tensor<128x64xf32>
      %rows_m = tile.make_range 0 to 64 : tensor<64xi32>
      %q_off_v = tile.splat %q_off : i32 -> tensor<64xi32>
      %offs_m = arith.addi %q_off_v, %rows_m : tensor<64xi32>
      %offs_m2 = tile.expand_dims %offs_m, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %offs_mb = tile.broadcast %offs_m2 : tensor<1x64xi32> -> tensor<128x64xi32>
      %seen = arith.cmpi sge, %offs_mb, %offs_nb : tensor<128x64xi32>
      %pt = arith.select %seen, %pt_all, %zero_s : tensor<128x64xi1>, tensor<128x64xf32>
      // dV_j += Pt dO_i
      %pt16 = arith.truncf %pt : tensor<128x64xf32> to tensor<128x64xf16>
      %dv_f = mma.async_dot %pt16, %do, %dv : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      // dSt = Pt * (V_j dO_i^T - Delta_i)
      %dpt = mma.wait %dpt_f {pending = 1} : tensor<128x64xf32>
      %delta_e = tile.desc_load %delta_desc[%bh, %q_off] : !tile.desc<tensor<1x64xf32>> -> tensor<1x64xf32>
      %ndelta = arith.negf %delta_e : tensor<1x64xf32>
      %ndelta_b = tile.broadcast %ndelta : tensor<1x64xf32> -> tensor<128x64xf32>
      %dpt_c = arith.addf %dpt, %ndelta_b : tensor<128x64xf32>
      %pt_r = arith.extf %pt16 : tensor<128x64xf16> to tensor<128x64xf32>
      %dst = arith.mulf %pt_r, %dpt_c : tensor<128x64xf32>
      %dst16 = arith.truncf %dst : tensor<128x64xf32> to tensor<128x64xf16>
      // dK_j += dSt Q_i
      // dQ_i^T += K_j^T dS^T, reduce-added into the f32 [B*H, d, Lp] buffer by TMA
      %kt = tile.trans %k [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
      %dqt_i_f = mma.async_dot %kt, %dst16, %zero_qt : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %dk_f = mma.async_dot %dst16, %q, %dk : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      %dv_new, %dqt_i = mma.wait %dv_f, %dqt_i_f {pending = 1} : tensor<128x128xf32>, tensor<128x64xf32>
      tile.desc_store add %dqt_desc[%bh, %c0, %q_off], %dqt_i : !tile.desc<tensor<128x64xf32>>
      %dk_new = mma.wait %dk_f {pending = 0} : tensor<128x128xf32>
      scf.yield %dk_new, %dv_new : tensor<128x128xf32>, tensor<128x128xf32>
    }
    %scale_kv = tile.splat %sm_scale : f32 -> tensor<128x128xf32>
    %dk_s = arith.mulf %r#0, %scale_kv : tensor<128x128xf32>
    %dk16 = arith.truncf %dk_s : tensor<128x128xf32> to tensor<128x128xf16>
    tile.desc_store %dk_desc[%bh, %kv_off, %c0], %dk16 : !tile.desc<tensor<128x128xf16>>
    %dv16 = arith.truncf %r#1 : tensor<128x128xf32> to tensor<128x128xf16>
    tile.desc_store %dv_desc[%bh, %kv_off, %c0], %dv16 : !tile.desc<tensor<128x128xf16>>
    func.return
  }
}
