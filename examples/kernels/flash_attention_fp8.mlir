// FP8 attention forward at any sequence length, as a Triton user writes it
// (`tl.dot(p.to(tl.float8e4nv), v)`): Q, K, V are [B*H, L, 128] e4m3 tensors (3-D TMA
// descriptors, one program per (query block, batch*head), grid (ceil(L / 128), B*H)), O is
// [B*H, L, 128] bf16. The descales (q, k, v: f32 arrays read at bh * descale_stride, so
// stride 1 is per head and stride 0 per tensor) fold into the softmax scale (q and k) and
// the epilogue's 1 / l (v). P is rounded to e4m3 for P·V. fp8 wgmma reads both operands
// K-major: ws-producer-transpose has the producer warp group copy each V tile transposed
// into a ring of V^T tiles (with ws-hopper{v-transpose=consumer}, ws-stage-operands has the
// consumers do it, into a buffer of theirs), and ws-lower-layouts converts P from the
// accumulator fragment into wgmma's 8-bit A fragment (nvgpu.convert_layout). Keys past L are masked to -inf; TMA clips the
// rows of the last query tile.
builtin.module {
  func.func @flash_attention_fp8(%q_desc: !tile.desc<tensor<128x128xf8E4M3FN>>, %k_desc: !tile.desc<tensor<128x128xf8E4M3FN>>,
                             %v_desc: !tile.desc<tensor<128x128xf8E4M3FN>>, %o_desc: !tile.desc<tensor<128x128xbf16>>,
                             %q_descale: !tile.ptr<f32>, %k_descale: !tile.ptr<f32>, %v_descale: !tile.ptr<f32>,
                             %descale_stride: i32, %L: i32, %sm_scale: f32)
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
    %L_v = tile.splat %L : i32 -> tensor<128xi32>
    %n_tiles = arith.ceildivsi %L, %Bn : i32
    %r:4 = scf.for %j = %c0 to %n_tiles step %c1
        iter_args(%m_i = %m0, %l_i = %l0, %acc = %acc0, %kv_off = %c0)
        -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
      %kt = tile.trans %k [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
      %qk_raw = tile.dot %q, %kt, %zero_qk : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
      %kv_off_v = tile.splat %kv_off : i32 -> tensor<128xi32>
      %offs_n = arith.addi %kv_off_v, %cols : tensor<128xi32>
      %in_n = arith.cmpi slt, %offs_n, %L_v : tensor<128xi32>
      %in_n2 = tile.expand_dims %in_n, 0 : tensor<128xi1> -> tensor<1x128xi1>
      %in_nb = tile.broadcast %in_n2 : tensor<1x128xi1> -> tensor<128x128xi1>
      %qk_m = arith.select %in_nb, %qk_raw, %neg_inf : tensor<128x128xi1>, tensor<128x128xf32>
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
