// Attention forward, FlashAttention-4's shape (Twill §6.2.2): each program takes 256 query
// rows as two 128-row sub-tiles, q0 and q1, that share every K and V tile; each sub-tile has
// its own online softmax (m, l) and accumulator (acc). Splitting the program's rows in two is
// what gives a scheduler two independent chains to interleave: one sub-tile's exponential
// runs while the tensor core does the other's GEMMs. Q, K, V, O are [B*H, L, 128] f16
// tensors; grid (ceil(L / 256), B*H). L must be a multiple of 128 (no key mask: FA4 masks
// only its last tile, which this kernel leaves out); query rows past L are clipped by the
// store. `ws-opt -p 'ws-schedule{arch=b200}'` finds FA4's warp roles for its loop
// (docs/blackwell-schedules.md); it is written for the Blackwell model and has no Hopper
// lowering of its own (ws-hopper compiles it with the heuristic pipeline).
builtin.module {
  func.func @flash_attention_fa4(%q_desc: !tile.desc<tensor<128x128xf16>>, %k_desc: !tile.desc<tensor<128x128xf16>>,
                                 %v_desc: !tile.desc<tensor<128x128xf16>>, %o_desc: !tile.desc<tensor<128x128xf16>>,
                                 %L: i32, %sm_scale: f32)
      attributes {tile.kernel, tile.num_warps = 12 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 256 : i32
    %Bsub = arith.constant 128 : i32
    %Bn = arith.constant 128 : i32
    %log2e = arith.constant 1.44269504 : f32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off0 = arith.muli %start_m, %Bm : i32
    %q_off1 = arith.addi %q_off0, %Bsub : i32
    %q0 = tile.desc_load %q_desc[%bh, %q_off0, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %q1 = tile.desc_load %q_desc[%bh, %q_off1, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_v = tile.splat %qk_scale : f32 -> tensor<128xf32>
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x128xf32>
    %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
    %l_init = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %acc_init = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qk = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %n_tiles = arith.ceildivsi %L, %Bn : i32
    %r:7 = scf.for %j = %c0 to %n_tiles step %c1
        iter_args(%m0 = %m_init, %l0 = %l_init, %m1 = %m_init, %l1 = %l_init, %acc0 = %acc_init, %acc1 = %acc_init,
                  %kv_off = %c0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
      %kt = tile.trans %k [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
      %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf16>> -> tensor<128x128xf16>
      // ---- query sub-tile 0: rows q_off + 0 .. + 127
      %s0 = tile.dot %q0, %kt, %zero_qk : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %rowmax0 = tile.reduce max %s0, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %rowmax_s0 = arith.mulf %rowmax0, %scale_v : tensor<128xf32>
      %m_new0 = arith.maximumf %m0, %rowmax_s0 : tensor<128xf32>
      %m_e0 = tile.expand_dims %m_new0, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %m_b0 = tile.broadcast %m_e0 : tensor<128x1xf32> -> tensor<128x128xf32>
      %qk0 = arith.mulf %s0, %scale_t : tensor<128x128xf32>
      %qk_c0 = arith.subf %qk0, %m_b0 : tensor<128x128xf32>
      %p0 = math.exp2 %qk_c0 : tensor<128x128xf32>
      %l_ij0 = tile.reduce sum %p0, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %m_diff0 = arith.subf %m0, %m_new0 : tensor<128xf32>
      %alpha0 = math.exp2 %m_diff0 : tensor<128xf32>
      %l_scaled0 = arith.mulf %l0, %alpha0 : tensor<128xf32>
      %l_new0 = arith.addf %l_scaled0, %l_ij0 : tensor<128xf32>
      %alpha_e0 = tile.expand_dims %alpha0, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %alpha_b0 = tile.broadcast %alpha_e0 : tensor<128x1xf32> -> tensor<128x128xf32>
      %acc_s0 = arith.mulf %acc0, %alpha_b0 : tensor<128x128xf32>
      %pb0 = arith.truncf %p0 : tensor<128x128xf32> to tensor<128x128xf16>
      %o0 = tile.dot %pb0, %v, %acc_s0 : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      // ---- query sub-tile 1: rows q_off + 128 .. + 127
      %s1 = tile.dot %q1, %kt, %zero_qk : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %rowmax1 = tile.reduce max %s1, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %rowmax_s1 = arith.mulf %rowmax1, %scale_v : tensor<128xf32>
      %m_new1 = arith.maximumf %m1, %rowmax_s1 : tensor<128xf32>
      %m_e1 = tile.expand_dims %m_new1, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %m_b1 = tile.broadcast %m_e1 : tensor<128x1xf32> -> tensor<128x128xf32>
      %qk1 = arith.mulf %s1, %scale_t : tensor<128x128xf32>
      %qk_c1 = arith.subf %qk1, %m_b1 : tensor<128x128xf32>
      %p1 = math.exp2 %qk_c1 : tensor<128x128xf32>
      %l_ij1 = tile.reduce sum %p1, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %m_diff1 = arith.subf %m1, %m_new1 : tensor<128xf32>
      %alpha1 = math.exp2 %m_diff1 : tensor<128xf32>
      %l_scaled1 = arith.mulf %l1, %alpha1 : tensor<128xf32>
      %l_new1 = arith.addf %l_scaled1, %l_ij1 : tensor<128xf32>
      %alpha_e1 = tile.expand_dims %alpha1, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %alpha_b1 = tile.broadcast %alpha_e1 : tensor<128x1xf32> -> tensor<128x128xf32>
      %acc_s1 = arith.mulf %acc1, %alpha_b1 : tensor<128x128xf32>
      %pb1 = arith.truncf %p1 : tensor<128x128xf32> to tensor<128x128xf16>
      %o1 = tile.dot %pb1, %v, %acc_s1 : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %kv_next = arith.addi %kv_off, %Bn : i32
      scf.yield %m_new0, %l_new0, %m_new1, %l_new1, %o0, %o1, %kv_next : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, i32
    }
    %l_e0 = tile.expand_dims %r#1, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %l_b0 = tile.broadcast %l_e0 : tensor<128x1xf32> -> tensor<128x128xf32>
    %out0 = arith.divf %r#4, %l_b0 : tensor<128x128xf32>
    %out16_0 = arith.truncf %out0 : tensor<128x128xf32> to tensor<128x128xf16>
    tile.desc_store %o_desc[%bh, %q_off0, %c0], %out16_0 : !tile.desc<tensor<128x128xf16>>
    %l_e1 = tile.expand_dims %r#3, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %l_b1 = tile.broadcast %l_e1 : tensor<128x1xf32> -> tensor<128x128xf32>
    %out1 = arith.divf %r#5, %l_b1 : tensor<128x128xf32>
    %out16_1 = arith.truncf %out1 : tensor<128x128xf32> to tensor<128x128xf16>
    tile.desc_store %o_desc[%bh, %q_off1, %c0], %out16_1 : !tile.desc<tensor<128x128xf16>>
    func.return
  }
}
