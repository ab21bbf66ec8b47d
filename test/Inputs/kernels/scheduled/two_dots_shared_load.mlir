// `ws-opt test/Inputs/kernels/two_dots_shared_load.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-24): issue 12's
// S1 reproducer with the solver's schedule kept as IR (the dots on different warp groups), so that
// the cooperative-ring tests run on machines without OR-Tools. Since 2026-11-26 the solver plans a
// cooperative team here instead (the epilogue holds both 128x128 accumulators at once: 2 x 128
// registers in one warp group); this file keeps the earlier schedule as an input.
builtin.module {
  func.func @two_dots(%x_desc: !tile.desc<tensor<128x64xf16>>, %w1_desc: !tile.desc<tensor<128x64xf16>>, %w2_desc: !tile.desc<tensor<128x64xf16>>, %o_desc: !tile.desc<tensor<128x128xf32>>, %K: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %c128 : i32
    %on = arith.muli %pn, %c128 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %r, %r_1, %r_2 = scf.for %k = %c0 to %kt step %c1 iter_args(%g = %z, %u = %z, %ok = %c0) -> (tensor<128x128xf32>, tensor<128x128xf32>, i32) : i32 {
      %x = tile.desc_load %x_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 2 : i32}
      %w1 = tile.desc_load %w1_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 2 : i32}
      %w2 = tile.desc_load %w2_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 3 : i32, ws.warp = 2 : i32}
      %w1t = tile.trans %w1 [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %w2t = tile.trans %w2 [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %g2 = tile.dot %x, %w1t, %g : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %u2 = tile.dot %x, %w2t, %u : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32> {ws.stage = 0 : i32, ws.order = 4 : i32, ws.warp = 1 : i32}
      %ok2 = arith.addi %ok, %c64 : i32
      scf.yield %g2, %u2, %ok2 : tensor<128x128xf32>, tensor<128x128xf32>, i32
    } {ws.schedule = {II = 4 : i32, L = 5 : i32, warps = 2 : i32, solver = "cpsat", vl_warp = 2 : i32}}
    %o = arith.mulf %r, %r_1 : tensor<128x128xf32>
    tile.desc_store %o_desc[%om, %on], %o : !tile.desc<tensor<128x128xf32>>
    func.return
  }
}
