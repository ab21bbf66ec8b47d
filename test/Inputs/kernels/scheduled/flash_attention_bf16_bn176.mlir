// `ws-opt test/Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-26): the
// solver's choice for 176-key tiles, the two compute groups as a ping-pong team (ws.schedule cooperative = 2, pingpong).
// Priced at unit occupancy the schedule keeps everything in one stage, so partner-latency=auto prices a member's softmax
// as measured beside its partner (partner_latency = true): P·V and the rescale one stage behind QK^T (FA3's pipeline).
// Kept as IR for machines without OR-Tools; the GPU tests compile it with ws-hopper (O staged in Q's slot).
builtin.module {
  func.func @flash_attention_bf16(%q_desc: !tile.desc<tensor<128x128xbf16>>, %k_desc: !tile.desc<tensor<176x128xbf16>>, %v_desc: !tile.desc<tensor<176x128xbf16>>, %o_desc: !tile.desc<tensor<128x128xbf16>>, %L: i32, %sm_scale: f32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 128 : i32
    %Bn = arith.constant 176 : i32
    %log2e = arith.constant 1.44269502 : f32
    %start_m = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %q_off = arith.muli %start_m, %Bm : i32
    %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<128x128xbf16>> -> tensor<128x128xbf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_v = tile.splat %qk_scale : f32 -> tensor<128xf32>
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x176xf32>
    %m0 = arith.constant dense<0xff800000> : tensor<128xf32>
    %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qk = arith.constant dense<0.000000e+00> : tensor<128x176xf32>
    %neg_inf = arith.constant dense<0xff800000> : tensor<128x176xf32>
    %cols = tile.make_range 0 to 176 : tensor<176xi32>
    %L_v = tile.splat %L : i32 -> tensor<176xi32>
    %n_tiles = arith.ceildivsi %L, %Bn : i32
    %r, %r_1, %r_2, %r_3 = scf.for %j = %c0 to %n_tiles step %c1 iter_args(%m_i = %m0, %l_i = %l0, %acc = %acc0, %kv_off = %c0) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32) : i32 {
      %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<176x128xbf16>> -> tensor<176x128xbf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %kt = tile.trans %k [1, 0] : tensor<176x128xbf16> -> tensor<128x176xbf16>
      %qk_raw = tile.dot %q, %kt, %zero_qk : tensor<128x128xbf16>, tensor<128x176xbf16> -> tensor<128x176xf32> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 0 : i32}
      %kv_off_v = tile.splat %kv_off : i32 -> tensor<176xi32>
      %offs_n = arith.addi %kv_off_v, %cols {ws.stage = 0 : i32, ws.order = 2 : i32} : tensor<176xi32>
      %in_n = arith.cmpi slt, %offs_n, %L_v {ws.stage = 0 : i32, ws.order = 3 : i32} : tensor<176xi32>
      %in_n2 = tile.expand_dims %in_n, 0 : tensor<176xi1> -> tensor<1x176xi1>
      %in_nb = tile.broadcast %in_n2 : tensor<1x176xi1> -> tensor<128x176xi1>
      %qk_m = arith.select %in_nb, %qk_raw, %neg_inf {ws.stage = 0 : i32, ws.order = 6 : i32, ws.warp = 0 : i32} : tensor<128x176xi1>, tensor<128x176xf32>
      %rowmax = tile.reduce max %qk_m, 1 : tensor<128x176xf32> -> tensor<128xf32> {ws.stage = 0 : i32, ws.order = 7 : i32, ws.warp = 0 : i32}
      %rowmax_s = arith.mulf %rowmax, %scale_v {ws.stage = 0 : i32, ws.order = 8 : i32, ws.warp = 0 : i32} : tensor<128xf32>
      %m_ij = arith.maximumf %m_i, %rowmax_s {ws.stage = 0 : i32, ws.order = 10 : i32, ws.warp = 0 : i32} : tensor<128xf32>
      %m_e = tile.expand_dims %m_ij, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %m_b = tile.broadcast %m_e : tensor<128x1xf32> -> tensor<128x176xf32>
      %qk = arith.mulf %qk_m, %scale_t {ws.stage = 0 : i32, ws.order = 9 : i32, ws.warp = 0 : i32} : tensor<128x176xf32>
      %qk_c = arith.subf %qk, %m_b {ws.stage = 0 : i32, ws.order = 13 : i32, ws.warp = 0 : i32} : tensor<128x176xf32>
      %p = math.exp2 %qk_c {ws.stage = 0 : i32, ws.order = 16 : i32, ws.warp = 0 : i32} : tensor<128x176xf32>
      %l_ij = tile.reduce sum %p, 1 : tensor<128x176xf32> -> tensor<128xf32> {ws.stage = 0 : i32, ws.order = 17 : i32, ws.warp = 0 : i32}
      %m_diff = arith.subf %m_i, %m_ij {ws.stage = 0 : i32, ws.order = 11 : i32, ws.warp = 0 : i32} : tensor<128xf32>
      %alpha = math.exp2 %m_diff {ws.stage = 0 : i32, ws.order = 12 : i32, ws.warp = 0 : i32} : tensor<128xf32>
      %l_scaled = arith.mulf %l_i, %alpha {ws.stage = 0 : i32, ws.order = 14 : i32, ws.warp = 0 : i32} : tensor<128xf32>
      %l_new = arith.addf %l_scaled, %l_ij {ws.stage = 0 : i32, ws.order = 19 : i32, ws.warp = 0 : i32} : tensor<128xf32>
      %alpha_e = tile.expand_dims %alpha, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %alpha_b = tile.broadcast %alpha_e : tensor<128x1xf32> -> tensor<128x128xf32>
      %acc_s = arith.mulf %acc, %alpha_b {ws.stage = 1 : i32, ws.order = 4 : i32, ws.warp = 0 : i32} : tensor<128x128xf32>
      %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<176x128xbf16>> -> tensor<176x128xbf16> {ws.stage = 0 : i32, ws.order = 15 : i32, ws.warp = 1 : i32}
      %p16 = arith.truncf %p {ws.stage = 0 : i32, ws.order = 18 : i32, ws.warp = 0 : i32} : tensor<128x176xf32> to tensor<128x176xbf16>
      %acc_new = tile.dot %p16, %v, %acc_s : tensor<128x176xbf16>, tensor<176x128xbf16> -> tensor<128x128xf32> {ws.stage = 1 : i32, ws.order = 5 : i32, ws.warp = 0 : i32}
      %kv_next = arith.addi %kv_off, %Bn : i32
      scf.yield %m_ij, %l_new, %acc_new, %kv_next : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, i32
    } {ws.schedule = {II = 30 : i32, L = 46 : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, pingpong = true, partner_latency = true, vl_warp = 1 : i32}}
    %l_e = tile.expand_dims %r_1, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %l_b = tile.broadcast %l_e : tensor<128x1xf32> -> tensor<128x128xf32>
    %o = arith.divf %r_2, %l_b : tensor<128x128xf32>
    %o16 = arith.truncf %o : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.desc_store %o_desc[%bh, %q_off, %c0], %o16 : !tile.desc<tensor<128x128xbf16>>
    func.return
  }
}
