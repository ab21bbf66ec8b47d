// `ws-opt test/Inputs/kernels/batched_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-25): the solver's
// schedule, kept as IR for machines without OR-Tools (test/gpu runs it through ws-hopper).
builtin.module {
  func.func @batched_gemm(%a_desc: !tile.desc<tensor<64x32xbf16>>, %b_desc: !tile.desc<tensor<64x32xbf16>>, %c_desc: !tile.desc<tensor<64x64xf32>>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %kt = arith.ceildivsi %K, %c32 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %arow0 = arith.muli %pb, %M : i32
      %am = arith.muli %pm, %c64 : i32
      %arow = arith.addi %arow0, %am : i32
      %brow0 = arith.muli %pb, %N : i32
      %bn = arith.muli %pn, %c64 : i32
      %brow = arith.addi %brow0, %bn : i32
      %x = tile.desc_load %a_desc[%arow, %ok] : !tile.desc<tensor<64x32xbf16>> -> tensor<64x32xbf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %y = tile.desc_load %b_desc[%brow, %ok] : !tile.desc<tensor<64x32xbf16>> -> tensor<64x32xbf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %yt = tile.trans %y [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
      %d = tile.dot %x, %yt, %acc : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c32 : i32
      scf.yield %d, %ok2 : tensor<64x64xf32>, i32
    } {ws.schedule = {II = 4 : i32, L = 5 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %pm_1 = tile.program_id 0 : i32
    %pn_1 = tile.program_id 1 : i32
    %pb_1 = tile.program_id 2 : i32
    %crow0 = arith.muli %pb_1, %M : i32
    %cm = arith.muli %pm_1, %c64 : i32
    %crow = arith.addi %crow0, %cm : i32
    %cn = arith.muli %pn_1, %c64 : i32
    tile.desc_store %c_desc[%crow, %cn], %r : !tile.desc<tensor<64x64xf32>>
    func.return
  }
}
