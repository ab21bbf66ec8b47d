// `ws-opt test/Inputs/kernels/relu_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// schedule, kept as IR for machines without OR-Tools (test/gpu runs it through ws-hopper).
builtin.module {
  func.func @relu_gemm(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>, %c_desc: !tile.desc<tensor<64x64xf32>>, %K: i32, %relu: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1.000000e+00 : f32
    %two = arith.constant 2.000000e+00 : f32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %c64 : i32
    %on = arith.muli %pn, %c64 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c64 : i32
      scf.yield %d, %ok2 : tensor<64x64xf32>, i32
    } {ws.schedule = {II = 4 : i32, L = 4 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %on_flag = arith.cmpi ne, %relu, %c0 : i32
    %t, %s = scf.if %on_flag -> (tensor<64x64xf32>, f32) {
      %rl = arith.maximumf %r, %zero : tensor<64x64xf32>
      scf.yield %rl, %two : tensor<64x64xf32>, f32
    } else {
      scf.yield %r, %one : tensor<64x64xf32>, f32
    }
    %sv = tile.splat %s : f32 -> tensor<64x64xf32>
    %out = arith.mulf %t, %sv : tensor<64x64xf32>
    tile.desc_store %c_desc[%om, %on], %out : !tile.desc<tensor<64x64xf32>>
    func.return
  }
}
