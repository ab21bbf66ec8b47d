// Attention forward in bf16 at any sequence length with 112-key tiles: examples/kernels/
// flash_attention_bf16.mlir with K and V read as 112x128 boxes and scores 128x112 (the last
// tile of a length that is no multiple of 112 reads zeros past L, masked to -inf). Smaller score
// tiles leave a consumer thread room for two of them beside O: the kernel on which
// ws-hopper{softmax-overlap=qk} fits the registers at head dim 128 (bench/attention.py
// variant 'bn112:PIPE'). Q, K, V, O are [B*H, L, 128] bf16 tensors; grid (ceil(L / 128), B*H);
// arguments q, k, v, o descriptors, L, scale.
module {
  func.func @flash_attention_bf16(%q_desc: !tile.desc<tensor<128x128xbf16>>, %k_desc: !tile.desc<tensor<112x128xbf16>>,
                             %v_desc: !tile.desc<tensor<112x128xbf16>>, %o_desc: !tile.desc<tensor<128x128xbf16>>,
                             %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 128 : i32
    %Bn = arith.constant 112 : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<128x128xbf16>> -> tensor<128x128xbf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_v = tile.splat %qk_scale : f32 -> tensor<128xf32>
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x112xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qk = arith.constant dense<0.000000e+00> : tensor<128x112xf32>
    %neg_inf = arith.constant dense<0xFF800000> : tensor<128x112xf32>
    %cols = tile.make_range 0 to 112 : tensor<112xi32>
    %L_v = tile.splat %L : i32 -> tensor<112xi32>
    %n_tiles = arith.ceildivsi %L, %Bn : i32
    %r:4 = scf.for %j = %c0 to %n_tiles step %c1
        iter_args(%m_i = %m0, %l_i = %l0, %acc = %acc0, %kv_off = %c0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<112x128xbf16>> -> tensor<112x128xbf16>
      %kt = tile.trans %k [1, 0] : tensor<112x128xbf16> -> tensor<128x112xbf16>
      %qk_raw = tile.dot %q, %kt, %zero_qk : tensor<128x128xbf16>, tensor<128x112xbf16> -> tensor<128x112xf32>
      // scores of keys past L (zeros read past the end of this head) are -inf
      %kv_off_v = tile.splat %kv_off : i32 -> tensor<112xi32>
      %offs_n = arith.addi %kv_off_v, %cols : tensor<112xi32>
      %in_n = arith.cmpi slt, %offs_n, %L_v : tensor<112xi32>
      %in_n2 = tile.expand_dims %in_n, 0 : tensor<112xi1> -> tensor<1x112xi1>
      %in_nb = tile.broadcast %in_n2 : tensor<1x112xi1> -> tensor<128x112xi1>
      %qk_m = arith.select %in_nb, %qk_raw, %neg_inf : tensor<128x112xi1>, tensor<128x112xf32>
      %rowmax = tile.reduce max %qk_m, 1 : tensor<128x112xf32> -> tensor<128xf32>
      %rowmax_s = arith.mulf %rowmax, %scale_v : tensor<128xf32>
      %m_ij = arith.maximumf %m_i, %rowmax_s : tensor<128xf32>
      %m_e = tile.expand_dims %m_ij, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %m_b = tile.broadcast %m_e : tensor<128x1xf32> -> tensor<128x112xf32>
      %qk = arith.mulf %qk_m, %scale_t : tensor<128x112xf32>
      %qk_c = arith.subf %qk, %m_b : tensor<128x112xf32>
      %p = math.exp2 %qk_c : tensor<128x112xf32>
      %l_ij = tile.reduce sum %p, 1 : tensor<128x112xf32> -> tensor<128xf32>
      %m_diff = arith.subf %m_i, %m_ij : tensor<128xf32>
      %alpha = math.exp2 %m_diff : tensor<128xf32>
      %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
      %l_new = arith.addf %l_scaled, %l_ij : tensor<128xf32>
      %alpha_e = tile.expand_dims %alpha, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %alpha_b = tile.broadcast %alpha_e : tensor<128x1xf32> -> tensor<128x128xf32>
      %acc_s = arith.mulf %acc, %alpha_b : tensor<128x128xf32>
      %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<112x128xbf16>> -> tensor<112x128xbf16>
      %p16 = arith.truncf %p : tensor<128x112xf32> to tensor<128x112xbf16>
      %acc_new = tile.dot %p16, %v, %acc_s : tensor<128x112xbf16>, tensor<112x128xbf16> -> tensor<128x128xf32>
      %kv_next = arith.addi %kv_off, %Bn : i32
      scf.yield %m_ij, %l_new, %acc_new, %kv_next : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32
    }
    %l_e = tile.expand_dims %r#1, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %l_b = tile.broadcast %l_e : tensor<128x1xf32> -> tensor<128x128xf32>
    %o = arith.divf %r#2, %l_b : tensor<128x128xf32>
    %o16 = arith.truncf %o : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.desc_store %o_desc[%bh, %q_off, %c0], %o16 : !tile.desc<tensor<128x128xbf16>>
    func.return
  }
}
