// `ws-opt test/Inputs/kernels/flash_attention_bwd_bf16.mlir -p 'ws-schedule{arch=h100 time-limit=120}'` (CP-SAT, 2026-12-02):
// the solver's schedule of the attention backward's loop (II = 42, L = 74): S^T, P^T and dV on warp
// group 0; dP^T, dS^T, dK (one stage behind) and dQ^T on warp group 1; the TMA loads and dQ's TMA
// reduce-add on the variable-latency group 2. ws-hopper builds it as a producer and two compute
// partitions (ws-partition: the reduce-add runs where dQ^T is computed, each of dK and dV is stored
// by the partition that accumulates it, P^T crosses as bf16; ws-distribute: one ring per tile,
// read by every partition that uses it). Kept as IR so that the tests need no 30-second solve.
builtin.module {
  func.func @flash_attention_bwd_bf16(%q_desc: !tile.desc<tensor<64x128xbf16>>, %k_desc: !tile.desc<tensor<128x128xbf16>>, %v_desc: !tile.desc<tensor<128x128xbf16>>, %do_desc: !tile.desc<tensor<64x128xbf16>>, %dk_desc: !tile.desc<tensor<128x128xbf16>>, %dv_desc: !tile.desc<tensor<128x128xbf16>>, %lse_desc: !tile.desc<tensor<1x64xf32>>, %delta_desc: !tile.desc<tensor<1x64xf32>>, %dqt_desc: !tile.desc<tensor<128x64xf32>>, %L: i32, %sm_scale: f32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 64 : i32
    %Bn = arith.constant 128 : i32
    %Dh = arith.constant 128 : i32
    %log2e = arith.constant 1.44269502 : f32
    %start_n = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32
    %kv_off = arith.muli %start_n, %Bn : i32
    %k = tile.desc_load %k_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xbf16>> -> tensor<128x128xbf16>
    %v = tile.desc_load %v_desc[%bh, %kv_off, %c0] : !tile.desc<tensor<128x128xbf16>> -> tensor<128x128xbf16>
    %qk_scale = arith.mulf %sm_scale, %log2e : f32
    %scale_t = tile.splat %qk_scale : f32 -> tensor<128x64xf32>
    %zero_s = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %zero_kv = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero_qt = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %i_start = arith.constant 0 : i32
    %n_q = arith.ceildivsi %L, %Bm : i32
    %r, %r_1 = scf.for %i = %i_start to %n_q step %c1 iter_args(%dk = %zero_kv, %dv = %zero_kv) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
      %q_off = arith.muli %i, %Bm : i32
      %q = tile.desc_load %q_desc[%bh, %q_off, %c0] : !tile.desc<tensor<64x128xbf16>> -> tensor<64x128xbf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 2 : i32}
      %do = tile.desc_load %do_desc[%bh, %q_off, %c0] : !tile.desc<tensor<64x128xbf16>> -> tensor<64x128xbf16> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 2 : i32}
      %qt = tile.trans %q [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
      %st = tile.dot %k, %qt, %zero_s : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 0 : i32}
      %lse_e = tile.desc_load %lse_desc[%bh, %q_off] : !tile.desc<tensor<1x64xf32>> -> tensor<1x64xf32> {ws.stage = 0 : i32, ws.order = 3 : i32, ws.warp = 2 : i32}
      %nlse = arith.negf %lse_e {ws.stage = 0 : i32, ws.order = 5 : i32, ws.warp = 0 : i32} : tensor<1x64xf32>
      %nlse_b = tile.broadcast %nlse : tensor<1x64xf32> -> tensor<128x64xf32>
      %st_c = math.fma %st, %scale_t, %nlse_b {ws.stage = 0 : i32, ws.order = 6 : i32, ws.warp = 0 : i32} : tensor<128x64xf32>
      %pt = math.exp2 %st_c {ws.stage = 0 : i32, ws.order = 9 : i32, ws.warp = 0 : i32} : tensor<128x64xf32>
      %pt16 = arith.truncf %pt {ws.stage = 0 : i32, ws.order = 12 : i32, ws.warp = 0 : i32} : tensor<128x64xf32> to tensor<128x64xbf16>
      %dv_new = tile.dot %pt16, %do, %dv : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32> {ws.stage = 0 : i32, ws.order = 14 : i32, ws.warp = 0 : i32}
      %dot = tile.trans %do [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
      %dpt = tile.dot %v, %dot, %zero_s : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32> {ws.stage = 0 : i32, ws.order = 10 : i32, ws.warp = 1 : i32}
      %delta_e = tile.desc_load %delta_desc[%bh, %q_off] : !tile.desc<tensor<1x64xf32>> -> tensor<1x64xf32> {ws.stage = 0 : i32, ws.order = 7 : i32, ws.warp = 2 : i32}
      %ndelta = arith.negf %delta_e {ws.stage = 0 : i32, ws.order = 8 : i32, ws.warp = 1 : i32} : tensor<1x64xf32>
      %ndelta_b = tile.broadcast %ndelta : tensor<1x64xf32> -> tensor<128x64xf32>
      %dpt_c = arith.addf %dpt, %ndelta_b {ws.stage = 0 : i32, ws.order = 15 : i32, ws.warp = 1 : i32} : tensor<128x64xf32>
      %pt_r = arith.extf %pt16 {ws.stage = 0 : i32, ws.order = 13 : i32, ws.warp = 0 : i32} : tensor<128x64xbf16> to tensor<128x64xf32>
      %dst = arith.mulf %pt_r, %dpt_c {ws.stage = 0 : i32, ws.order = 16 : i32, ws.warp = 1 : i32} : tensor<128x64xf32>
      %dst16 = arith.truncf %dst {ws.stage = 0 : i32, ws.order = 17 : i32, ws.warp = 1 : i32} : tensor<128x64xf32> to tensor<128x64xbf16>
      %dk_new = tile.dot %dst16, %q, %dk : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32> {ws.stage = 1 : i32, ws.order = 4 : i32, ws.warp = 1 : i32}
      %kt = tile.trans %k [1, 0] : tensor<128x128xbf16> -> tensor<128x128xbf16>
      %dqt_i = tile.dot %kt, %dst16, %zero_qt : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32> {ws.stage = 0 : i32, ws.order = 18 : i32, ws.warp = 1 : i32}
      tile.desc_store add %dqt_desc[%bh, %c0, %q_off], %dqt_i : !tile.desc<tensor<128x64xf32>> {ws.stage = 1 : i32, ws.order = 11 : i32, ws.warp = 2 : i32}
      scf.yield %dk_new, %dv_new : tensor<128x128xf32>, tensor<128x128xf32>
    } {ws.schedule = {II = 42 : i32, L = 74 : i32, warps = 2 : i32, solver = "cpsat", vl_warp = 2 : i32}}
    %scale_kv = tile.splat %sm_scale : f32 -> tensor<128x128xf32>
    %dk_s = arith.mulf %r, %scale_kv : tensor<128x128xf32>
    %dk16 = arith.truncf %dk_s : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.desc_store %dk_desc[%bh, %kv_off, %c0], %dk16 : !tile.desc<tensor<128x128xbf16>>
    %dv16 = arith.truncf %r_1 : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.desc_store %dv_desc[%bh, %kv_off, %c0], %dv16 : !tile.desc<tensor<128x128xbf16>>
    func.return
  }
}
