// `ws-opt test/Inputs/kernels/fp8_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// schedule, kept as IR for machines without OR-Tools (test/gpu runs it through ws-hopper).
builtin.module {
  func.func @fp8_gemm(%a_desc: !tile.desc<tensor<64x64xf8E4M3FN>>, %b_desc: !tile.desc<tensor<64x64xf8E4M3FN>>, %c_desc: !tile.desc<tensor<64x64xf16>>, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %c64 : i32
    %on = arith.muli %pn, %c64 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %ub = arith.muli %kt, %c2 : i32
    %lb = arith.constant 0 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %acc = scf.for %k2 = %lb to %ub step %c2 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
      %k = arith.divsi %k2, %c2 : i32
      %ok = arith.muli %k, %c64 : i32
      %x = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf8E4M3FN>> -> tensor<64x64xf8E4M3FN> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %y = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x64xf8E4M3FN>> -> tensor<64x64xf8E4M3FN> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %yt = tile.trans %y [1, 0] : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
      %d = tile.dot %x, %yt, %a : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      scf.yield %d : tensor<64x64xf32>
    } {ws.schedule = {II = 2 : i32, L = 3 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %c = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
    tile.desc_store %c_desc[%om, %on], %c : !tile.desc<tensor<64x64xf16>>
    func.return
  }
}
