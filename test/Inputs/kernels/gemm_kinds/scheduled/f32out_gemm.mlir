// `ws-opt test/Inputs/kernels/gemm_kinds/f32out_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-26): the solver's
// schedule kept as IR, so bench/gemm_kinds.py's 'ws-schedule{arch=h100},...' variants and the GPU tests run
// where OR-Tools is not installed (test_gemm_kinds_compile.py checks it is still the solver's output).
builtin.module {
  func.func @f32out_gemm(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>, %c_desc: !tile.desc<tensor<64x128xf32>>, %M: i32, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %pid = tile.program_id 0 : i32
    %npm = arith.ceildivsi %M, %c64 : i32
    %pm = arith.remsi %pid, %npm : i32
    %pn = arith.divsi %pid, %npm : i32
    %om = arith.muli %pm, %c64 : i32
    %on = arith.muli %pn, %c128 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x128xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c64 : i32
      scf.yield %d, %ok2 : tensor<64x128xf32>, i32
    } {ws.schedule = {II = 6 : i32, L = 5 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    tile.desc_store %c_desc[%om, %on], %r : !tile.desc<tensor<64x128xf32>>
    func.return
  }
}
