// `ws-opt test/Inputs/kernels/gemm_kinds/fp8_scaled_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-26): the solver's
// schedule kept as IR, so bench/gemm_kinds.py's 'ws-schedule{arch=h100},...' variants and the GPU tests run
// where OR-Tools is not installed (test_gemm_kinds_compile.py checks it is still the solver's output).
builtin.module {
  func.func @fp8_scaled_gemm(%a_desc: !tile.desc<tensor<128x128xf8E4M3FN>>, %b_desc: !tile.desc<tensor<256x128xf8E4M3FN>>, %scale_a: !tile.ptr<f32>, %scale_b: !tile.ptr<f32>, %c_desc: !tile.desc<tensor<128x256xbf16>>, %K: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %c128 : i32
    %on = arith.muli %pn, %c256 : i32
    %kt = arith.ceildivsi %K, %c128 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x256xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<256x128xf8E4M3FN>> -> tensor<256x128xf8E4M3FN> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %bt = tile.trans %b [1, 0] : tensor<256x128xf8E4M3FN> -> tensor<128x256xf8E4M3FN>
      %d = tile.dot %a, %bt, %acc : tensor<128x128xf8E4M3FN>, tensor<128x256xf8E4M3FN> -> tensor<128x256xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c128 : i32
      scf.yield %d, %ok2 : tensor<128x256xf32>, i32
    } {ws.schedule = {II = 16 : i32, L = 21 : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, vl_warp = 1 : i32}}
    %z = arith.constant dense<0> : tensor<256xi32>
    %sap0 = tile.splat %scale_a : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
    %sap = tile.addptr %sap0, %z : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    %sa = tile.load %sap : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
    %sbp0 = tile.splat %scale_b : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
    %sbp = tile.addptr %sbp0, %z : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    %sb = tile.load %sbp : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
    %s = arith.mulf %sa, %sb : tensor<256xf32>
    %se = tile.expand_dims %s, 0 : tensor<256xf32> -> tensor<1x256xf32>
    %sbc = tile.broadcast %se : tensor<1x256xf32> -> tensor<128x256xf32>
    %y = arith.mulf %r, %sbc : tensor<128x256xf32>
    %c = arith.truncf %y : tensor<128x256xf32> to tensor<128x256xbf16>
    tile.desc_store %c_desc[%om, %on], %c : !tile.desc<tensor<128x256xbf16>>
    func.return
  }
}
