// `ws-opt test/Inputs/kernels/gemm_kinds/bias_gelu_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-26): the solver's
// schedule kept as IR, so bench/gemm_kinds.py's 'ws-schedule{arch=h100},...' variants and the GPU tests run
// where OR-Tools is not installed (test_gemm_kinds_compile.py checks it is still the solver's output).
builtin.module {
  func.func @bias_gelu_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>, %bias: !tile.ptr<f16>, %c_ptr: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %stride_cm: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %c128 : i32
    %on = arith.muli %pn, %c128 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c64 : i32
      scf.yield %d, %ok2 : tensor<128x128xf32>, i32
    } {ws.schedule = {II = 8 : i32, L = 9 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
    %rm = tile.make_range 0 to 128 : tensor<128xi32>
    %rn = tile.make_range 0 to 128 : tensor<128xi32>
    %onv = tile.splat %on : i32 -> tensor<128xi32>
    %cols = arith.addi %onv, %rn : tensor<128xi32>
    %Nv = tile.splat %N : i32 -> tensor<128xi32>
    %in_n = arith.cmpi slt, %cols, %Nv : tensor<128xi32>
    %bp0 = tile.splat %bias : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
    %bp = tile.addptr %bp0, %cols : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    %bv16 = tile.load %bp, %in_n : tensor<128x!tile.ptr<f16>> -> tensor<128xf16>
    %bv = arith.extf %bv16 : tensor<128xf16> to tensor<128xf32>
    %be = tile.expand_dims %bv, 0 : tensor<128xf32> -> tensor<1x128xf32>
    %bb = tile.broadcast %be : tensor<1x128xf32> -> tensor<128x128xf32>
    %x = arith.addf %r, %bb : tensor<128x128xf32>
    %half = arith.constant dense<5.000000e-01> : tensor<128x128xf32>
    %one = arith.constant dense<1.000000e+00> : tensor<128x128xf32>
    %k0 = arith.constant dense<0.797884583> : tensor<128x128xf32>
    %k1 = arith.constant dense<4.471500e-02> : tensor<128x128xf32>
    %x2 = arith.mulf %x, %x : tensor<128x128xf32>
    %p = math.fma %k1, %x2, %one : tensor<128x128xf32>
    %xp = arith.mulf %x, %p : tensor<128x128xf32>
    %u = arith.mulf %k0, %xp : tensor<128x128xf32>
    %t = math.tanh %u : tensor<128x128xf32>
    %hx = arith.mulf %half, %x : tensor<128x128xf32>
    %g = math.fma %hx, %t, %hx : tensor<128x128xf32>
    %c = arith.truncf %g : tensor<128x128xf32> to tensor<128x128xf16>
    %omv = tile.splat %om : i32 -> tensor<128xi32>
    %rows = arith.addi %omv, %rm : tensor<128xi32>
    %scm = tile.splat %stride_cm : i32 -> tensor<128xi32>
    %roff = arith.muli %rows, %scm : tensor<128xi32>
    %re = tile.expand_dims %roff, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %rb = tile.broadcast %re : tensor<128x1xi32> -> tensor<128x128xi32>
    %ce = tile.expand_dims %cols, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %cb = tile.broadcast %ce : tensor<1x128xi32> -> tensor<128x128xi32>
    %off = arith.addi %rb, %cb : tensor<128x128xi32>
    %base = tile.splat %c_ptr : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>>
    %ptrs = tile.addptr %base, %off : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
    %Mv = tile.splat %M : i32 -> tensor<128xi32>
    %in_m = arith.cmpi slt, %rows, %Mv : tensor<128xi32>
    %mme = tile.expand_dims %in_m, 1 : tensor<128xi1> -> tensor<128x1xi1>
    %mmb = tile.broadcast %mme : tensor<128x1xi1> -> tensor<128x128xi1>
    %mne = tile.expand_dims %in_n, 0 : tensor<128xi1> -> tensor<1x128xi1>
    %mnb = tile.broadcast %mne : tensor<1x128xi1> -> tensor<128x128xi1>
    %mask = arith.andi %mmb, %mnb : tensor<128x128xi1>
    tile.store %ptrs, %c, %mask : tensor<128x128x!tile.ptr<f16>>
    func.return
  }
}
