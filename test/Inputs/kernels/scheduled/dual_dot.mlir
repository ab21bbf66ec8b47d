// `ws-opt test/Inputs/kernels/dual_dot.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// schedule, kept as IR for machines without OR-Tools (test/gpu runs it through ws-hopper).
builtin.module {
  func.func @dual_dot(%a_desc: !tile.desc<tensor<64x32xf16>>, %g_desc: !tile.desc<tensor<64x32xf16>>, %u_desc: !tile.desc<tensor<64x32xf16>>, %o_desc: !tile.desc<tensor<64x64xf32>>, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %c64 : i32
    %on = arith.muli %pn, %c64 : i32
    %kt = arith.ceildivsi %K, %c32 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%g = %zero, %u = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %ok = arith.muli %k, %c32 : i32
      %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %wg = tile.desc_load %g_desc[%on, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16> {ws.stage = 0 : i32, ws.order = 3 : i32, ws.warp = 1 : i32}
      %wu = tile.desc_load %u_desc[%on, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %wgt = tile.trans %wg [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %wut = tile.trans %wu [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %g2 = tile.dot %a, %wgt, %g : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32> {ws.stage = 0 : i32, ws.order = 4 : i32, ws.warp = 0 : i32}
      %u2 = tile.dot %a, %wut, %u : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      scf.yield %g2, %u2 : tensor<64x64xf32>, tensor<64x64xf32>
    } {ws.schedule = {II = 6 : i32, L = 7 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %o = arith.mulf %r, %r_1 : tensor<64x64xf32>
    tile.desc_store %o_desc[%om, %on], %o : !tile.desc<tensor<64x64xf32>>
    func.return
  }
}
