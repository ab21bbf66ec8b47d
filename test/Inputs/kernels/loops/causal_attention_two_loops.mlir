// Causal attention forward in two loops over the same K / V descriptors, as Triton's
// tutorial writes it: the blocks below the diagonal (no mask), then the diagonal block
// (scores above the diagonal masked to -inf), the softmax state and the K/V row carried
// from the first loop into the second. Pieces of causal_attention.mlir.
// Q, K, V, O are [B*H*L, 128] row-major f16, read and written through TMA descriptors.
builtin.module {
  func.func @causal_attention_two_loops(%q_desc: !tile.desc<tensor<128x128xf16>>, %k_desc: !tile.desc<tensor<128x128xf16>>,
                       %v_desc: !tile.desc<tensor<128x128xf16>>, %o_desc: !tile.desc<tensor<128x128xf16>>,
                       %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 128 : i32
    %Bn = arith.constant 128 : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_m = "tile.program_id"() <{axis = 0 : i32}> : () -> i32
    %off_hz = "tile.program_id"() <{axis = 1 : i32}> : () -> i32
    %row0 = arith.muli %off_hz, %L : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %q_row = arith.addi %row0, %q_off : i32
    %q = "tile.desc_load"(%q_desc, %q_row, %c0) : (!tile.desc<tensor<128x128xf16>>, i32, i32) -> tensor<128x128xf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_v = "tile.splat"(%qk_scale) : (f32) -> tensor<128xf32>
    %scale_t = "tile.splat"(%qk_scale) : (f32) -> tensor<128x128xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qk = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %n_tiles = arith.addi %start_m, %c1 : i32
    %rows = "tile.make_range"() <{start = 0 : i32, end = 128 : i32}> : () -> tensor<128xi32>
    %q_off_v = "tile.splat"(%q_off) : (i32) -> tensor<128xi32>
    %offs_m = arith.addi %q_off_v, %rows : tensor<128xi32>
    %offs_m2 = "tile.expand_dims"(%offs_m) <{axis = 1 : i32}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %offs_mb = "tile.broadcast"(%offs_m2) : (tensor<128x1xi32>) -> tensor<128x128xi32>
    %neg_inf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
    %s:4 = scf.for %j = %c0 to %start_m step %c1
        iter_args(%m_i = %m0, %l_i = %l0, %acc = %acc0, %kv_row = %row0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k = "tile.desc_load"(%k_desc, %kv_row, %c0) : (!tile.desc<tensor<128x128xf16>>, i32, i32) -> tensor<128x128xf16>
      %kt = "tile.trans"(%k) <{order = array<i32: 1, 0>}> : (tensor<128x128xf16>) -> tensor<128x128xf16>
      %qk = "tile.dot"(%q, %kt, %zero_qk) : (tensor<128x128xf16>, tensor<128x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
      %rowmax = "tile.reduce"(%qk) <{axis = 1 : i32, kind = "max"}> : (tensor<128x128xf32>) -> tensor<128xf32>
      %rowmax_s = arith.mulf %rowmax, %scale_v : tensor<128xf32>
      %m_ij = arith.maximumf %m_i, %rowmax_s : tensor<128xf32>
      %qk_s = arith.mulf %qk, %scale_t : tensor<128x128xf32>
      %m_e = "tile.expand_dims"(%m_ij) <{axis = 1 : i32}> : (tensor<128xf32>) -> tensor<128x1xf32>
      %m_b = "tile.broadcast"(%m_e) : (tensor<128x1xf32>) -> tensor<128x128xf32>
      %qk_c = arith.subf %qk_s, %m_b : tensor<128x128xf32>
      %p = math.exp2 %qk_c : tensor<128x128xf32>
      %l_ij = "tile.reduce"(%p) <{axis = 1 : i32, kind = "sum"}> : (tensor<128x128xf32>) -> tensor<128xf32>
      %m_diff = arith.subf %m_i, %m_ij : tensor<128xf32>
      %alpha = math.exp2 %m_diff : tensor<128xf32>
      %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
      %l_new = arith.addf %l_scaled, %l_ij : tensor<128xf32>
      %alpha_e = "tile.expand_dims"(%alpha) <{axis = 1 : i32}> : (tensor<128xf32>) -> tensor<128x1xf32>
      %alpha_b = "tile.broadcast"(%alpha_e) : (tensor<128x1xf32>) -> tensor<128x128xf32>
      %acc_s = arith.mulf %acc, %alpha_b : tensor<128x128xf32>
      %v = "tile.desc_load"(%v_desc, %kv_row, %c0) : (!tile.desc<tensor<128x128xf16>>, i32, i32) -> tensor<128x128xf16>
      %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
      %acc_new = "tile.dot"(%p16, %v, %acc_s) : (tensor<128x128xf16>, tensor<128x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
      %kv_next = arith.addi %kv_row, %Bn : i32
      scf.yield %m_ij, %l_new, %acc_new, %kv_next : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32
    }
    %r:4 = scf.for %j_d = %start_m to %n_tiles step %c1
        iter_args(%m_i_d = %s#0, %l_i_d = %s#1, %acc_d = %s#2, %kv_row_d = %s#3)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k_d = "tile.desc_load"(%k_desc, %kv_row_d, %c0) : (!tile.desc<tensor<128x128xf16>>, i32, i32) -> tensor<128x128xf16>
      %kt_d = "tile.trans"(%k_d) <{order = array<i32: 1, 0>}> : (tensor<128x128xf16>) -> tensor<128x128xf16>
      %qk_raw_d = "tile.dot"(%q, %kt_d, %zero_qk) : (tensor<128x128xf16>, tensor<128x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
      %n_off_d = arith.muli %j_d, %Bn : i32
      %n_off_v_d = "tile.splat"(%n_off_d) : (i32) -> tensor<128xi32>
      %offs_n_d = arith.addi %n_off_v_d, %rows : tensor<128xi32>
      %offs_n2_d = "tile.expand_dims"(%offs_n_d) <{axis = 0 : i32}> : (tensor<128xi32>) -> tensor<1x128xi32>
      %offs_nb_d = "tile.broadcast"(%offs_n2_d) : (tensor<1x128xi32>) -> tensor<128x128xi32>
      %causal_d = arith.cmpi sge, %offs_mb, %offs_nb_d : tensor<128x128xi32>
      %qk_d = arith.select %causal_d, %qk_raw_d, %neg_inf : tensor<128x128xi1>, tensor<128x128xf32>
      %rowmax_d = "tile.reduce"(%qk_d) <{axis = 1 : i32, kind = "max"}> : (tensor<128x128xf32>) -> tensor<128xf32>
      %rowmax_s_d = arith.mulf %rowmax_d, %scale_v : tensor<128xf32>
      %m_ij_d = arith.maximumf %m_i_d, %rowmax_s_d : tensor<128xf32>
      %qk_s_d = arith.mulf %qk_d, %scale_t : tensor<128x128xf32>
      %m_e_d = "tile.expand_dims"(%m_ij_d) <{axis = 1 : i32}> : (tensor<128xf32>) -> tensor<128x1xf32>
      %m_b_d = "tile.broadcast"(%m_e_d) : (tensor<128x1xf32>) -> tensor<128x128xf32>
      %qk_c_d = arith.subf %qk_s_d, %m_b_d : tensor<128x128xf32>
      %p_d = math.exp2 %qk_c_d : tensor<128x128xf32>
      %l_ij_d = "tile.reduce"(%p_d) <{axis = 1 : i32, kind = "sum"}> : (tensor<128x128xf32>) -> tensor<128xf32>
      %m_diff_d = arith.subf %m_i_d, %m_ij_d : tensor<128xf32>
      %alpha_d = math.exp2 %m_diff_d : tensor<128xf32>
      %l_scaled_d = arith.mulf %l_i_d, %alpha_d : tensor<128xf32>
      %l_new_d = arith.addf %l_scaled_d, %l_ij_d : tensor<128xf32>
      %alpha_e_d = "tile.expand_dims"(%alpha_d) <{axis = 1 : i32}> : (tensor<128xf32>) -> tensor<128x1xf32>
      %alpha_b_d = "tile.broadcast"(%alpha_e_d) : (tensor<128x1xf32>) -> tensor<128x128xf32>
      %acc_s_d = arith.mulf %acc_d, %alpha_b_d : tensor<128x128xf32>
      %v_d = "tile.desc_load"(%v_desc, %kv_row_d, %c0) : (!tile.desc<tensor<128x128xf16>>, i32, i32) -> tensor<128x128xf16>
      %p16_d = arith.truncf %p_d : tensor<128x128xf32> to tensor<128x128xf16>
      %acc_new_d = "tile.dot"(%p16_d, %v_d, %acc_s_d) : (tensor<128x128xf16>, tensor<128x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
      %kv_next_d = arith.addi %kv_row_d, %Bn : i32
      scf.yield %m_ij_d, %l_new_d, %acc_new_d, %kv_next_d : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32
    }
    %l_e = "tile.expand_dims"(%r#1) <{axis = 1 : i32}> : (tensor<128xf32>) -> tensor<128x1xf32>
    %l_b = "tile.broadcast"(%l_e) : (tensor<128x1xf32>) -> tensor<128x128xf32>
    %o = arith.divf %r#2, %l_b : tensor<128x128xf32>
    %o16 = arith.truncf %o : tensor<128x128xf32> to tensor<128x128xf16>
    "tile.desc_store"(%o_desc, %q_row, %c0, %o16) : (!tile.desc<tensor<128x128xf16>>, i32, i32, tensor<128x128xf16>) -> ()
    func.return
  }
}
