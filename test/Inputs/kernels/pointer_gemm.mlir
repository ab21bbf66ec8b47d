// C = A @ B (f16 in, f32 accumulation, f16 out) in Triton's classic form: pointer tiles
// `a + rows[:, None] * stride_am + k[None, :]` and `b + k[:, None] * stride_bk + cols[None, :]`
// advanced by BK (and BK * stride_bk) each iteration, masked at M, N and K with other = 0,
// the programs in L2-grouped order (GROUP_M = 8 rows of tiles per group). Grid:
// cdiv(M, 128) * cdiv(N, 128). ws-tma-load turns both loads into TMA loads.
func.func @pointer_gemm(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32,
                        %stride_am: i32, %stride_bk: i32, %stride_cm: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id 0 : i32
  %num_pid_m = arith.ceildivsi %M, %c128 : i32
  %num_pid_n = arith.ceildivsi %N, %c128 : i32
  %in_group = arith.muli %num_pid_n, %c8 : i32
  %group = arith.divsi %pid, %in_group : i32
  %first_m = arith.muli %group, %c8 : i32
  %left_m = arith.subi %num_pid_m, %first_m : i32
  %group_m = arith.minsi %left_m, %c8 : i32
  %in = arith.remsi %pid, %in_group : i32
  %in_m = arith.remsi %in, %group_m : i32
  %pid_m = arith.addi %first_m, %in_m : i32
  %pid_n = arith.divsi %in, %group_m : i32
  %om = arith.muli %pid_m, %c128 : i32
  %on = arith.muli %pid_n, %c128 : i32
  %r128 = tile.make_range 0 to 128 : tensor<128xi32>
  %rk = tile.make_range 0 to 64 : tensor<64xi32>
  %om_v = tile.splat %om : i32 -> tensor<128xi32>
  %on_v = tile.splat %on : i32 -> tensor<128xi32>
  %offs_am = arith.addi %om_v, %r128 : tensor<128xi32>
  %offs_bn = arith.addi %on_v, %r128 : tensor<128xi32>
  // a_ptrs = a + offs_am[:, None] * stride_am + offs_k[None, :]
  %am_e = tile.expand_dims %offs_am, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %sam = tile.splat %stride_am : i32 -> tensor<128x1xi32>
  %am_s = arith.muli %am_e, %sam : tensor<128x1xi32>
  %am_b = tile.broadcast %am_s : tensor<128x1xi32> -> tensor<128x64xi32>
  %ak_e = tile.expand_dims %rk, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ak_b = tile.broadcast %ak_e : tensor<1x64xi32> -> tensor<128x64xi32>
  %a_off = arith.addi %am_b, %ak_b : tensor<128x64xi32>
  %a_base = tile.splat %a : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %a_ptrs0 = tile.addptr %a_base, %a_off : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  // b_ptrs = b + offs_k[:, None] * stride_bk + offs_bn[None, :]
  %bk_e = tile.expand_dims %rk, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %sbk = tile.splat %stride_bk : i32 -> tensor<64x1xi32>
  %bk_s = arith.muli %bk_e, %sbk : tensor<64x1xi32>
  %bk_b = tile.broadcast %bk_s : tensor<64x1xi32> -> tensor<64x128xi32>
  %bn_e = tile.expand_dims %offs_bn, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %bn_b = tile.broadcast %bn_e : tensor<1x128xi32> -> tensor<64x128xi32>
  %b_off = arith.addi %bk_b, %bn_b : tensor<64x128xi32>
  %b_base = tile.splat %b : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %b_ptrs0 = tile.addptr %b_base, %b_off : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  // the row and column masks that do not change with k
  %Mv = tile.splat %M : i32 -> tensor<128x1xi32>
  %am_ok = arith.cmpi slt, %am_e, %Mv : tensor<128x1xi32>
  %am_okb = tile.broadcast %am_ok : tensor<128x1xi1> -> tensor<128x64xi1>
  %Nv = tile.splat %N : i32 -> tensor<1x128xi32>
  %bn_ok = arith.cmpi slt, %bn_e, %Nv : tensor<1x128xi32>
  %bn_okb = tile.broadcast %bn_ok : tensor<1x128xi1> -> tensor<64x128xi1>
  %a_step = arith.constant dense<64> : tensor<128x64xi32>
  %bstep = arith.muli %stride_bk, %c64 : i32
  %b_step = tile.splat %bstep : i32 -> tensor<64x128xi32>
  %a_zero = arith.constant dense<0.0> : tensor<128x64xf16>
  %b_zero = arith.constant dense<0.0> : tensor<64x128xf16>
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:3 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %a_ptrs = %a_ptrs0, %b_ptrs = %b_ptrs0)
      -> (tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16>>, tensor<64x128x!tile.ptr<f16>>) : i32 {
    // offs_k < K - k * BK
    %kk = arith.muli %k, %c64 : i32
    %kleft = arith.subi %K, %kk : i32
    %kl_a = tile.splat %kleft : i32 -> tensor<1x64xi32>
    %ak_ok = arith.cmpi slt, %ak_e, %kl_a : tensor<1x64xi32>
    %ak_okb = tile.broadcast %ak_ok : tensor<1x64xi1> -> tensor<128x64xi1>
    %a_mask = arith.andi %am_okb, %ak_okb : tensor<128x64xi1>
    %kl_b = tile.splat %kleft : i32 -> tensor<64x1xi32>
    %bk_ok = arith.cmpi slt, %bk_e, %kl_b : tensor<64x1xi32>
    %bk_okb = tile.broadcast %bk_ok : tensor<64x1xi1> -> tensor<64x128xi1>
    %b_mask = arith.andi %bk_okb, %bn_okb : tensor<64x128xi1>
    %av = tile.load %a_ptrs, %a_mask, %a_zero : tensor<128x64x!tile.ptr<f16>> -> tensor<128x64xf16>
    %bv = tile.load %b_ptrs, %b_mask, %b_zero : tensor<64x128x!tile.ptr<f16>> -> tensor<64x128xf16>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %a_next = tile.addptr %a_ptrs, %a_step : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
    %b_next = tile.addptr %b_ptrs, %b_step : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    scf.yield %d, %a_next, %b_next : tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16>>, tensor<64x128x!tile.ptr<f16>>
  }
  %cv = arith.truncf %r#0 : tensor<128x128xf32> to tensor<128x128xf16>
  // c_ptrs = c + (offs_cm * stride_cm)[:, None] + offs_cn[None, :], masked at M and N (the
  // arithmetic on 1-D tiles, as the consumer's layouts take it)
  %scm = tile.splat %stride_cm : i32 -> tensor<128xi32>
  %cm_s = arith.muli %offs_am, %scm : tensor<128xi32>
  %cm_e = tile.expand_dims %cm_s, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cm_b = tile.broadcast %cm_e : tensor<128x1xi32> -> tensor<128x128xi32>
  %cn_e = tile.expand_dims %offs_bn, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cn_b = tile.broadcast %cn_e : tensor<1x128xi32> -> tensor<128x128xi32>
  %c_off = arith.addi %cm_b, %cn_b : tensor<128x128xi32>
  %c_base = tile.splat %c : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>>
  %c_ptrs = tile.addptr %c_base, %c_off : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
  %M1 = tile.splat %M : i32 -> tensor<128xi32>
  %N1 = tile.splat %N : i32 -> tensor<128xi32>
  %cm_ok = arith.cmpi slt, %offs_am, %M1 : tensor<128xi32>
  %cn_ok = arith.cmpi slt, %offs_bn, %N1 : tensor<128xi32>
  %cm_oke = tile.expand_dims %cm_ok, 1 : tensor<128xi1> -> tensor<128x1xi1>
  %cn_oke = tile.expand_dims %cn_ok, 0 : tensor<128xi1> -> tensor<1x128xi1>
  %cm_okb = tile.broadcast %cm_oke : tensor<128x1xi1> -> tensor<128x128xi1>
  %cn_okb = tile.broadcast %cn_oke : tensor<1x128xi1> -> tensor<128x128xi1>
  %c_mask = arith.andi %cm_okb, %cn_okb : tensor<128x128xi1>
  tile.store %c_ptrs, %cv, %c_mask : tensor<128x128x!tile.ptr<f16>>
  func.return
}
