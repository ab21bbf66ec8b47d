// Attention forward for training (causal): Q, K, V, O are [B*H, L, 128] f16 tensors, LSE is
// [B*H, L] f32 (the row log-sum-exp in log2 units of the scaled scores, m_i + log2(l_i): what
// the backward kernel subtracts before its exp2). One program per (query block of 128,
// batch*head); grid (cdiv(L, 128), B*H). Written by wsdialects/runtime/attention_bwd_kernels.py.
builtin.module {
  func.func @flash_attention_fwd_lse_causal(%q_desc: !tile.desc<tensor<128x128xf16>>, %k_desc: !tile.desc<tensor<128x128xf16>>,
                   %v_desc: !tile.desc<tensor<128x128xf16>>, %o_desc: !tile.desc<tensor<128x128xf16>>,
                   %lse_ptr: !tile.ptr<f32>, %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 128 : i32
    %Bn = arith.constant 128 : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_v = tile.splat %qk_scale : f32 -> tensor<128xf32>
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x128xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qk = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %neg_inf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
    %rows = tile.make_range 0 to 128 : tensor<128xi32>
    %cols = tile.make_range 0 to 128 : tensor<128xi32>
    %q_off_v = tile.splat %q_off : i32 -> tensor<128xi32>
    %offs_m = arith.addi %q_off_v, %rows : tensor<128xi32>
    %offs_m2 = tile.expand_dims %offs_m, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %offs_mb = tile.broadcast %offs_m2 : tensor<128x1xi32> -> tensor<128x128xi32>
    // the key blocks up to the one holding this block's last query (and not past L)
    %last_q = arith.addi %q_off, %Bm : i32
    %diag = arith.ceildivsi %last_q, %Bn : i32
    %all_tiles = arith.ceildivsi %L, %Bn : i32
    %n_tiles = arith.minsi %diag, %all_tiles : i32
    %r:4 = scf.for %j = %c0 to %n_tiles step %c1
        iter_args(%m_i = %m0, %l_i = %l0, %acc = %acc0, %kv_off = %c0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
      %kt = tile.trans %k [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
      %qk_raw = tile.dot %q, %kt, %zero_qk : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %kv_off_v = tile.splat %kv_off : i32 -> tensor<128xi32>
      %offs_n = arith.addi %kv_off_v, %cols : tensor<128xi32>
      // scores above the diagonal are -inf (which also masks the keys past L of every row below L)
      %offs_n2 = tile.expand_dims %offs_n, 0 : tensor<128xi32> -> tensor<1x128xi32>
      %offs_nb = tile.broadcast %offs_n2 : tensor<1x128xi32> -> tensor<128x128xi32>
      %keep = arith.cmpi sge, %offs_mb, %offs_nb : tensor<128x128xi32>
      %qk_m = arith.select %keep, %qk_raw, %neg_inf : tensor<128x128xi1>, tensor<128x128xf32>
      %rowmax = tile.reduce max %qk_m, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %rowmax_s = arith.mulf %rowmax, %scale_v : tensor<128xf32>
      %m_ij = arith.maximumf %m_i, %rowmax_s : tensor<128xf32>
      %m_e = tile.expand_dims %m_ij, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %m_b = tile.broadcast %m_e : tensor<128x1xf32> -> tensor<128x128xf32>
      %qk = arith.mulf %qk_m, %scale_t : tensor<128x128xf32>
      %qk_c = arith.subf %qk, %m_b : tensor<128x128xf32>
      %p = math.exp2 %qk_c : tensor<128x128xf32>
      %l_ij = tile.reduce sum %p, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %m_diff = arith.subf %m_i, %m_ij : tensor<128xf32>
      %alpha = math.exp2 %m_diff : tensor<128xf32>
      %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
      %l_new = arith.addf %l_scaled, %l_ij : tensor<128xf32>
      %alpha_e = tile.expand_dims %alpha, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %alpha_b = tile.broadcast %alpha_e : tensor<128x1xf32> -> tensor<128x128xf32>
      %acc_s = arith.mulf %acc, %alpha_b : tensor<128x128xf32>
      %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
      %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
      %acc_new = tile.dot %p16, %v, %acc_s : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %kv_next = arith.addi %kv_off, %Bn : i32
      scf.yield %m_ij, %l_new, %acc_new, %kv_next : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32
    }
    %l_e = tile.expand_dims %r#1, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %l_b = tile.broadcast %l_e : tensor<128x1xf32> -> tensor<128x128xf32>
    %o = arith.divf %r#2, %l_b : tensor<128x128xf32>
    %o16 = arith.truncf %o : tensor<128x128xf32> to tensor<128x128xf16>
    tile.desc_store %o_desc[%bh, %q_off, %c0], %o16 : !tile.desc<tensor<128x128xf16>>
    // LSE = m_i + log2(l_i), stored for the rows below L
    %log_l = math.log2 %r#1 : tensor<128xf32>
    %lse = arith.addf %r#0, %log_l : tensor<128xf32>
    %row0 = arith.muli %bh, %L : i32
    %lse_row = tile.addptr %lse_ptr, %row0 : !tile.ptr<f32>, i32
    %lse_base = tile.splat %lse_row : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %lse_ptrs = tile.addptr %lse_base, %offs_m : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %L_m = tile.splat %L : i32 -> tensor<128xi32>
    %in_m = arith.cmpi slt, %offs_m, %L_m : tensor<128xi32>
    tile.store %lse_ptrs, %lse, %in_m : tensor<128x!tile.ptr<f32>>
    func.return
  }
}
