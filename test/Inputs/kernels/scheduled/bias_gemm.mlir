// `ws-opt test/Inputs/kernels/bias_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// schedule, kept as IR for machines without OR-Tools (test/gpu runs it through ws-hopper).
builtin.module {
  func.func @bias_gemm(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>, %bias: !tile.ptr<f32>, %c_desc: !tile.desc<tensor<64x64xf16>>, %N: i32, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
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
    %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
      %ok = arith.muli %k, %c32 : i32
      %x = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %y = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %yt = tile.trans %y [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %d = tile.dot %x, %yt, %a : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      scf.yield %d : tensor<64x64xf32>
    } {ws.schedule = {II = 4 : i32, L = 5 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %rn = tile.make_range 0 to 64 : tensor<64xi32>
    %onv = tile.splat %on : i32 -> tensor<64xi32>
    %cols = arith.addi %onv, %rn : tensor<64xi32>
    %Nv = tile.splat %N : i32 -> tensor<64xi32>
    %inb = arith.cmpi slt, %cols, %Nv : tensor<64xi32>
    %bp0 = tile.splat %bias : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %bp = tile.addptr %bp0, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %bv = tile.load %bp, %inb : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
    %be = tile.expand_dims %bv, 0 : tensor<64xf32> -> tensor<1x64xf32>
    %bb = tile.broadcast %be : tensor<1x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %acc, %bb : tensor<64x64xf32>
    %c = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    tile.desc_store %c_desc[%om, %on], %c : !tile.desc<tensor<64x64xf16>>
    func.return
  }
}
