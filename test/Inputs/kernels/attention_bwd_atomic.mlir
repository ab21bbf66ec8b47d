// The attention backward's main kernel in its first form (dQ by tile.atomic_add through a pointer tile,
// LSE / Delta by masked pointer loads): attention_bwd_kernels.backward("f16", 128, dq="atomic", stats="ptr").
// Attention backward, the main kernel (FlashAttention-2/3's algorithm): one program per key
// block K_j, V_j of 128 keys (kept for the whole loop), grid (cdiv(L, 128), B*H); a loop over the
// query blocks of 64. Q, K, V, dO, dK, dV are [B*H, L, 128] f16 tensors; LSE (log2 units,
// as flash_attention_fwd_lse stores it) and Delta = rowsum(dO * O) are [B*H, L] f32 (masked loads);
// dQ is an f32 [B*H, L, 128] buffer the kernel adds dS K_j into (unscaled: flash_attention_bwd_dq scales it).
//   Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i)   (0 for queries past L)
//   dPt = V_j dO_i^T,  dSt = Pt * (dPt - Delta_i)
//   dV_j += Pt dO_i,  dK_j += dSt Q_i,  dQ_i^T += K_j^T dSt  (through transposed offsets, atomically)
//   dK_j = sm_scale * dK_j
// Keys past L read zeros (their dK, dV rows are not stored; their dQ terms multiply zero rows of K).
// Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @flash_attention_bwd(%q_desc: !tile.desc<tensor<64x128xf16>>, %k_desc: !tile.desc<tensor<128x128xf16>>,
                   %v_desc: !tile.desc<tensor<128x128xf16>>, %do_desc: !tile.desc<tensor<64x128xf16>>,
                   %dk_desc: !tile.desc<tensor<128x128xf16>>, %dv_desc: !tile.desc<tensor<128x128xf16>>,
                   %lse_ptr: !tile.ptr<f32>, %delta_ptr: !tile.ptr<f32>, %dq_ptr: !tile.ptr<f32>,
                   %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 64 : i32
    %Bn = arith.constant 128 : i32
    %Dh = arith.constant 128 : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_n = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %kv_off = arith.muli %start_n, %Bn : i32
    %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x64xf32>
    %zero_s = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %zero_kv = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %rows_m = tile.make_range 0 to 64 : tensor<64xi32>
    %cols_d = tile.make_range 0 to 128 : tensor<128xi32>
    %L_m = tile.splat %L : i32 -> tensor<64xi32>
    // this head's rows of LSE and Delta (row bh of [B*H, L])
    %row0 = arith.muli %bh, %L : i32
    %lse_row = tile.addptr %lse_ptr, %row0 : !tile.ptr<f32>, i32
    %delta_row = tile.addptr %delta_ptr, %row0 : !tile.ptr<f32>, i32
    // this head's slice of dQ (slice bh of [B*H, L, d])
    %dq_row0 = arith.muli %bh, %L : i32
    %elem0 = arith.muli %dq_row0, %Dh : i32
    %dq_head = tile.addptr %dq_ptr, %elem0 : !tile.ptr<f32>, i32
    // offsets of the d x BM block of dQ^T: row (query) * d + column
    %zero_qt = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %Dh_v = tile.splat %Dh : i32 -> tensor<64xi32>
    %row_elems = arith.muli %rows_m, %Dh_v : tensor<64xi32>
    %row_e = tile.expand_dims %row_elems, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %row_b = tile.broadcast %row_e : tensor<1x64xi32> -> tensor<128x64xi32>
    %col_e = tile.expand_dims %cols_d, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %col_b = tile.broadcast %col_e : tensor<128x1xi32> -> tensor<128x64xi32>
    %dqt_offs = arith.addi %row_b, %col_b : tensor<128x64xi32>
    %i_start = arith.constant 0 : i32
    %n_q = arith.ceildivsi %L, %Bm : i32
    %r:2 = scf.for %i = %i_start to %n_q step %c1 iter_args(%dk = %zero_kv, %dv = %zero_kv)
        -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
      %q_off = arith.muli %i, %Bm : i32
      %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
      %do = tile.desc_load %do_desc[%bh, %q_off, %c0] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
      %q_off_v = tile.splat %q_off : i32 -> tensor<64xi32>
      %offs_m = arith.addi %q_off_v, %rows_m : tensor<64xi32>
      %in_m = arith.cmpi slt, %offs_m, %L_m : tensor<64xi32>
      %lse_base = tile.splat %lse_row : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
      %lse_ptrs = tile.addptr %lse_base, %offs_m : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
      %lse = tile.load %lse_ptrs, %in_m : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
      %delta_base = tile.splat %delta_row : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
      %delta_ptrs = tile.addptr %delta_base, %offs_m : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
      %delta = tile.load %delta_ptrs, %in_m : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
      %lse_e = tile.expand_dims %lse, 0 : tensor<64xf32> -> tensor<1x64xf32>
      %delta_e = tile.expand_dims %delta, 0 : tensor<64xf32> -> tensor<1x64xf32>
      // Pt = exp2(K_j Q_i^T * sm_scale * log2(e) - LSE_i), masked
      %qt = tile.trans %q [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
      %st = tile.dot %k, %qt, %zero_s : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %st_s = arith.mulf %st, %scale_t : tensor<128x64xf32>
      %lse_b = tile.broadcast %lse_e : tensor<1x64xf32> -> tensor<128x64xf32>
      %st_c = arith.subf %st_s, %lse_b : tensor<128x64xf32>
      %pt_all = math.exp2 %st_c : tensor<128x64xf32>
      %in_m2 = tile.expand_dims %in_m, 0 : tensor<64xi1> -> tensor<1x64xi1>
      %in_mb = tile.broadcast %in_m2 : tensor<1x64xi1> -> tensor<128x64xi1>
      %pt = arith.select %in_mb, %pt_all, %zero_s : tensor<128x64xi1>, tensor<128x64xf32>
      // dV_j += Pt dO_i
      %pt16 = arith.truncf %pt : tensor<128x64xf32> to tensor<128x64xf16>
      %dv_new = tile.dot %pt16, %do, %dv : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      // dSt = Pt * (V_j dO_i^T - Delta_i)
      %dot = tile.trans %do [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
      %dpt = tile.dot %v, %dot, %zero_s : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %delta_b = tile.broadcast %delta_e : tensor<1x64xf32> -> tensor<128x64xf32>
      %dpt_c = arith.subf %dpt, %delta_b : tensor<128x64xf32>
      %dst = arith.mulf %pt, %dpt_c : tensor<128x64xf32>
      %dst16 = arith.truncf %dst : tensor<128x64xf32> to tensor<128x64xf16>
      // dK_j += dSt Q_i
      %dk_new = tile.dot %dst16, %q, %dk : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      // dQ_i^T += K_j^T dS^T, added into the f32 buffer (queries below L)
      %kt = tile.trans %k [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
      %dqt_i = tile.dot %kt, %dst16, %zero_qt : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %q_elem = arith.muli %q_off, %Dh : i32
      %dq_blk = tile.addptr %dq_head, %q_elem : !tile.ptr<f32>, i32
      %dq_base = tile.splat %dq_blk : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
      %dq_ptrs = tile.addptr %dq_base, %dqt_offs : tensor<128x64x!tile.ptr<f32>>, tensor<128x64xi32>
      %in_q2 = tile.expand_dims %in_m, 0 : tensor<64xi1> -> tensor<1x64xi1>
      %in_q = tile.broadcast %in_q2 : tensor<1x64xi1> -> tensor<128x64xi1>
      %old = tile.atomic_add %dq_ptrs, %dqt_i, %in_q : tensor<128x64x!tile.ptr<f32>>, tensor<128x64xf32> -> tensor<128x64xf32>
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
