// Causal sliding-window FP8 attention forward: query m attends keys n with
// m - window < n <= m (FlashAttention's window_size = (window - 1, 0)); the K/V loop starts at
// the first block the query block's windows reach. A row with no key in a block (its window
// starts after it) keeps m = -inf, and its scores subtract 0 instead (exp2 gives 0, not NaN).
// Q, K, V [B*H, L, 128] e4m3, O [B*H, L, 128] bf16, descales as in flash_attention_fp8.mlir;
// grid (ceil(L / 128), B*H).
builtin.module {
  func.func @flash_attention_fp8_window(%q_desc: !tile.desc<tensor<128x128xf8E4M3FN>>, %k_desc: !tile.desc<tensor<128x128xf8E4M3FN>>,
                             %v_desc: !tile.desc<tensor<128x128xf8E4M3FN>>, %o_desc: !tile.desc<tensor<128x128xbf16>>,
                             %q_descale: !tile.ptr<f32>, %k_descale: !tile.ptr<f32>, %v_descale: !tile.ptr<f32>,
                             %descale_stride: i32, %window: i32, %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 128 : i32
    %Bn = arith.constant 128 : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %ds_off = arith.muli %bh, %descale_stride : i32
    %qd_p = tile.addptr %q_descale, %ds_off : !tile.ptr<f32>, i32
    %kd_p = tile.addptr %k_descale, %ds_off : !tile.ptr<f32>, i32
    %vd_p = tile.addptr %v_descale, %ds_off : !tile.ptr<f32>, i32
    %qd = tile.load %qd_p : !tile.ptr<f32> -> f32
    %kd = tile.load %kd_p : !tile.ptr<f32> -> f32
    %vd = tile.load %vd_p : !tile.ptr<f32> -> f32
    %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
    %s0 = arith.mulf %sm_scale, %log2e : f32
    %s1 = arith.mulf %s0, %qd : f32
    %qk_scale = arith.mulf %s1, %kd : f32
    %scale_v = tile.splat %qk_scale : f32 -> tensor<128xf32>
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x128xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qk = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %neg_inf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
    %cols = tile.make_range 0 to 128 : tensor<128xi32>
    %q_off_v = tile.splat %q_off : i32 -> tensor<128xi32>
    %offs_m = arith.addi %q_off_v, %cols : tensor<128xi32>
    %offs_m2 = tile.expand_dims %offs_m, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %offs_mb = tile.broadcast %offs_m2 : tensor<128x1xi32> -> tensor<128x128xi32>
    %diag = arith.addi %start_m, %c1 : i32
    %all_tiles = arith.ceildivsi %L, %Bn : i32
    %n_tiles = arith.minsi %diag, %all_tiles : i32
    // the first key block any query of this block sees: (q_off - window + 1) / Bn, at least 0
    %w1 = arith.subi %window, %c1 : i32
    %first_key = arith.subi %q_off, %w1 : i32
    %first_key0 = arith.maxsi %first_key, %c0 : i32
    %lo = arith.divsi %first_key0, %Bn : i32
    %kv_lo = arith.muli %lo, %Bn : i32
    %win_v = tile.splat %window : i32 -> tensor<128x128xi32>
    %neg_inf_v = arith.constant dense<0xFF800000> : tensor<128xf32>
    %zero_v = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %r:4 = scf.for %j = %lo to %n_tiles step %c1
        iter_args(%m_i = %m0, %l_i = %l0, %acc = %acc0, %kv_off = %kv_lo)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
      %kt = tile.trans %k [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
      %qk_raw = tile.dot %q, %kt, %zero_qk : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
      // scores above the diagonal are -inf (which also masks the keys past L of every row below L)
      %kv_off_v = tile.splat %kv_off : i32 -> tensor<128xi32>
      %offs_n = arith.addi %kv_off_v, %cols : tensor<128xi32>
      %offs_n2 = tile.expand_dims %offs_n, 0 : tensor<128xi32> -> tensor<1x128xi32>
      %offs_nb = tile.broadcast %offs_n2 : tensor<1x128xi32> -> tensor<128x128xi32>
      %causal = arith.cmpi sge, %offs_mb, %offs_nb : tensor<128x128xi32>
      %dist = arith.subi %offs_mb, %offs_nb : tensor<128x128xi32>
      %near = arith.cmpi slt, %dist, %win_v : tensor<128x128xi32>
      %in_win = arith.andi %causal, %near : tensor<128x128xi1>
      %qk_m = arith.select %in_win, %qk_raw, %neg_inf : tensor<128x128xi1>, tensor<128x128xf32>
      %rowmax = tile.reduce max %qk_m, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %rowmax_s = arith.mulf %rowmax, %scale_v : tensor<128xf32>
      %m_ij = arith.maximumf %m_i, %rowmax_s : tensor<128xf32>
      %none = arith.cmpf oeq, %m_ij, %neg_inf_v : tensor<128xf32>
      %m_safe = arith.select %none, %zero_v, %m_ij : tensor<128xi1>, tensor<128xf32>
      %m_e = tile.expand_dims %m_safe, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %m_b = tile.broadcast %m_e : tensor<128x1xf32> -> tensor<128x128xf32>
      %qk = arith.mulf %qk_m, %scale_t : tensor<128x128xf32>
      %qk_c = arith.subf %qk, %m_b : tensor<128x128xf32>
      %p = math.exp2 %qk_c : tensor<128x128xf32>
      %l_ij = tile.reduce sum %p, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %m_diff = arith.subf %m_i, %m_safe : tensor<128xf32>
      %alpha = math.exp2 %m_diff : tensor<128xf32>
      %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
      %l_new = arith.addf %l_scaled, %l_ij : tensor<128xf32>
      %alpha_e = tile.expand_dims %alpha, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %alpha_b = tile.broadcast %alpha_e : tensor<128x1xf32> -> tensor<128x128xf32>
      %acc_s = arith.mulf %acc, %alpha_b : tensor<128x128xf32>
      %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
      %p8 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf8E4M3FN>
      %acc_new = tile.dot %p8, %v, %acc_s : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
      %kv_next = arith.addi %kv_off, %Bn : i32
      scf.yield %m_ij, %l_new, %acc_new, %kv_next : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32
    }
    %vd_s = tile.splat %vd : f32 -> tensor<128xf32>
    %inv_l = arith.divf %vd_s, %r#1 : tensor<128xf32>
    %l_e = tile.expand_dims %inv_l, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %l_b = tile.broadcast %l_e : tensor<128x1xf32> -> tensor<128x128xf32>
    %o = arith.mulf %r#2, %l_b : tensor<128x128xf32>
    %o16 = arith.truncf %o : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.desc_store %o_desc[%bh, %q_off, %c0], %o16 : !tile.desc<tensor<128x128xbf16>>
    func.return
  }
}
