// `ws-opt test/Inputs/kernels/softmax_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// schedule, kept as IR for machines without OR-Tools (test/gpu runs it through ws-hopper).
builtin.module {
  func.func @softmax_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>, %p_ptr: !tile.ptr<f16>, %rowmax: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %pm = tile.program_id 0 : i32
    %om = arith.muli %pm, %c128 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %s = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %ok = arith.muli %k, %c64 : i32
      %x = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %yt = tile.trans %y [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %d = tile.dot %x, %yt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      scf.yield %d : tensor<128x128xf32>
    } {ws.schedule = {II = 8 : i32, L = 9 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %rn = tile.make_range 0 to 128 : tensor<128xi32>
    %Nv = tile.splat %N : i32 -> tensor<128xi32>
    %col_ok = arith.cmpi slt, %rn, %Nv : tensor<128xi32>
    %col_ok2 = tile.expand_dims %col_ok, 0 : tensor<128xi1> -> tensor<1x128xi1>
    %col_okb = tile.broadcast %col_ok2 : tensor<1x128xi1> -> tensor<128x128xi1>
    %ninf = arith.constant dense<0xff800000> : tensor<128x128xf32>
    %sm = arith.select %col_okb, %s, %ninf : tensor<128x128xi1>, tensor<128x128xf32>
    %mx = tile.reduce max %sm, 1 : tensor<128x128xf32> -> tensor<128xf32>
    %mx2 = tile.expand_dims %mx, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mxb = tile.broadcast %mx2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %sh = arith.subf %sm, %mxb : tensor<128x128xf32>
    %e = math.exp %sh : tensor<128x128xf32>
    %sum = tile.reduce sum %e, 1 : tensor<128x128xf32> -> tensor<128xf32>
    %sum2 = tile.expand_dims %sum, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %sumb = tile.broadcast %sum2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %p = arith.divf %e, %sumb : tensor<128x128xf32>
    %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
    %rm = tile.make_range 0 to 128 : tensor<128xi32>
    %omv = tile.splat %om : i32 -> tensor<128xi32>
    %rows = arith.addi %omv, %rm : tensor<128xi32>
    %Mv = tile.splat %M : i32 -> tensor<128xi32>
    %row_ok = arith.cmpi slt, %rows, %Mv : tensor<128xi32>
    %mp0 = tile.splat %rowmax : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %mp = tile.addptr %mp0, %rows : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    tile.store %mp, %mx, %row_ok : tensor<128x!tile.ptr<f32>>
    %Ns = tile.splat %N : i32 -> tensor<128xi32>
    %roff = arith.muli %rows, %Ns : tensor<128xi32>
    %roff2 = tile.expand_dims %roff, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %roffb = tile.broadcast %roff2 : tensor<128x1xi32> -> tensor<128x128xi32>
    %rn2 = tile.expand_dims %rn, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %rnb = tile.broadcast %rn2 : tensor<1x128xi32> -> tensor<128x128xi32>
    %off = arith.addi %roffb, %rnb : tensor<128x128xi32>
    %pp0 = tile.splat %p_ptr : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>>
    %pp = tile.addptr %pp0, %off : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
    %row_ok2 = tile.expand_dims %row_ok, 1 : tensor<128xi1> -> tensor<128x1xi1>
    %row_okb = tile.broadcast %row_ok2 : tensor<128x1xi1> -> tensor<128x128xi1>
    %ok2 = arith.andi %row_okb, %col_okb : tensor<128x128xi1>
    tile.store %pp, %p16, %ok2 : tensor<128x128x!tile.ptr<f16>>
    func.return
  }
}
