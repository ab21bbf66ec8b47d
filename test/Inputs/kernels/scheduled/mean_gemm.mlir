// `ws-opt test/Inputs/kernels/mean_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// schedule, kept as IR for machines without OR-Tools (test/gpu runs it through ws-hopper).
builtin.module {
  func.func @mean_gemm(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>, %s_desc: !tile.desc<tensor<64x64xf32>>, %c_ptr: !tile.ptr<f32>, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %pm = tile.program_id 0 : i32
    %om = arith.muli %pm, %c64 : i32
    %scale = tile.desc_load %s_desc[%om, %c0] : !tile.desc<tensor<64x64xf32>> -> tensor<64x64xf32>
    %kt = arith.ceildivsi %K, %c32 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
      %x = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %yt = tile.trans %y [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %d = tile.dot %x, %yt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c32 : i32
      scf.yield %d, %ok2 : tensor<64x64xf32>, i32
    } {ws.schedule = {II = 4 : i32, L = 5 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %kf = arith.sitofp %r_1 : i32 to f32
    %kv = tile.splat %kf : f32 -> tensor<64x64xf32>
    %mean = arith.divf %r, %kv : tensor<64x64xf32>
    %scaled = arith.mulf %mean, %scale : tensor<64x64xf32>
    %rm = tile.make_range 0 to 64 : tensor<64xi32>
    %omv = tile.splat %om : i32 -> tensor<64xi32>
    %rows = arith.addi %omv, %rm : tensor<64xi32>
    %c64v = arith.constant dense<64> : tensor<64xi32>
    %roff = arith.muli %rows, %c64v : tensor<64xi32>
    %re = tile.expand_dims %roff, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
    %ce = tile.expand_dims %rm, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
    %off = arith.addi %rb, %cb : tensor<64x64xi32>
    %base = tile.splat %c_ptr : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
    %ptrs = tile.addptr %base, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
    tile.store %ptrs, %scaled : tensor<64x64x!tile.ptr<f32>>
    func.return
  }
}
