// `ws-opt test/Inputs/kernels/gemm_kinds/gated_mlp.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-26): the solver's
// schedule kept as IR, so bench/gemm_kinds.py's 'ws-schedule{arch=h100},...' variants and the GPU tests run
// where OR-Tools is not installed (test_gemm_kinds_compile.py checks it is still the solver's output).
builtin.module {
  func.func @gated_mlp(%x_desc: !tile.desc<tensor<128x64xf16>>, %w1_desc: !tile.desc<tensor<128x64xf16>>, %w3_desc: !tile.desc<tensor<128x64xf16>>, %h_desc: !tile.desc<tensor<128x128xf16>>, %M: i32, %K: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %pid = tile.program_id 0 : i32
    %npm = arith.ceildivsi %M, %c128 : i32
    %pm = arith.remsi %pid, %npm : i32
    %pn = arith.divsi %pid, %npm : i32
    %om = arith.muli %pm, %c128 : i32
    %on = arith.muli %pn, %c128 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %r, %r_1, %r_2 = scf.for %k = %c0 to %kt step %c1 iter_args(%g = %z, %u = %z, %ok = %c0) -> (tensor<128x128xf32>, tensor<128x128xf32>, i32) : i32 {
      %x = tile.desc_load %x_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %w1 = tile.desc_load %w1_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 3 : i32, ws.warp = 1 : i32}
      %w3 = tile.desc_load %w3_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %w1t = tile.trans %w1 [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %w3t = tile.trans %w3 [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %g2 = tile.dot %x, %w1t, %g : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32> {ws.stage = 0 : i32, ws.order = 4 : i32, ws.warp = 0 : i32}
      %u2 = tile.dot %x, %w3t, %u : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c64 : i32
      scf.yield %g2, %u2, %ok2 : tensor<128x128xf32>, tensor<128x128xf32>, i32
    } {ws.schedule = {II = 12 : i32, L = 13 : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, vl_warp = 1 : i32}}
    %one = arith.constant dense<1.000000e+00> : tensor<128x128xf32>
    %ng = arith.negf %r : tensor<128x128xf32>
    %e = math.exp %ng : tensor<128x128xf32>
    %den = arith.addf %one, %e : tensor<128x128xf32>
    %silu = arith.divf %r, %den : tensor<128x128xf32>
    %h = arith.mulf %silu, %r_1 : tensor<128x128xf32>
    %h16 = arith.truncf %h : tensor<128x128xf32> to tensor<128x128xf16>
    tile.desc_store %h_desc[%om, %on], %h16 : !tile.desc<tensor<128x128xf16>>
    func.return
  }
}
