// `ws-opt test/Inputs/kernels/gemm_kinds/bf16_gemm.mlir -p 'ws-schedule{arch=h100}'` (CP-SAT, 2026-11-26): the solver's
// schedule kept as IR, so bench/gemm_kinds.py's 'ws-schedule{arch=h100},...' variants and the GPU tests run
// where OR-Tools is not installed (test_gemm_kinds_compile.py checks it is still the solver's output).
builtin.module {
  func.func @bf16_gemm(%a_desc: !tile.desc<tensor<128x64xbf16>>, %b_desc: !tile.desc<tensor<256x64xbf16>>, %c_ptr: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32, %stride_cm: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %pid = tile.program_id 0 : i32
    %npm = arith.ceildivsi %M, %c128 : i32
    %pm = arith.remsi %pid, %npm : i32
    %pn = arith.divsi %pid, %npm : i32
    %om = arith.muli %pm, %c128 : i32
    %on = arith.muli %pn, %c256 : i32
    %kt = arith.ceildivsi %K, %c64 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %r, %r_1 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x256xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xbf16>> -> tensor<128x64xbf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
      %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<256x64xbf16>> -> tensor<256x64xbf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
      %bt = tile.trans %b [1, 0] : tensor<256x64xbf16> -> tensor<64x256xbf16>
      %d = tile.dot %a, %bt, %acc : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
      %ok2 = arith.addi %ok, %c64 : i32
      scf.yield %d, %ok2 : tensor<128x256xf32>, i32
    } {ws.schedule = {II = 12 : i32, L = 13 : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, vl_warp = 1 : i32}}
    %c = arith.truncf %r : tensor<128x256xf32> to tensor<128x256xbf16>
    %rm = tile.make_range 0 to 128 : tensor<128xi32>
    %rn = tile.make_range 0 to 256 : tensor<256xi32>
    %omv = tile.splat %om : i32 -> tensor<128xi32>
    %onv = tile.splat %on : i32 -> tensor<256xi32>
    %rows = arith.addi %omv, %rm : tensor<128xi32>
    %cols = arith.addi %onv, %rn : tensor<256xi32>
    %scm = tile.splat %stride_cm : i32 -> tensor<128xi32>
    %roff = arith.muli %rows, %scm : tensor<128xi32>
    %re = tile.expand_dims %roff, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %rb = tile.broadcast %re : tensor<128x1xi32> -> tensor<128x256xi32>
    %ce = tile.expand_dims %cols, 0 : tensor<256xi32> -> tensor<1x256xi32>
    %cb = tile.broadcast %ce : tensor<1x256xi32> -> tensor<128x256xi32>
    %off = arith.addi %rb, %cb : tensor<128x256xi32>
    %base = tile.splat %c_ptr : !tile.ptr<bf16> -> tensor<128x256x!tile.ptr<bf16>>
    %ptrs = tile.addptr %base, %off : tensor<128x256x!tile.ptr<bf16>>, tensor<128x256xi32>
    %Mv = tile.splat %M : i32 -> tensor<128xi32>
    %Nv = tile.splat %N : i32 -> tensor<256xi32>
    %in_m = arith.cmpi slt, %rows, %Mv : tensor<128xi32>
    %in_n = arith.cmpi slt, %cols, %Nv : tensor<256xi32>
    %mme = tile.expand_dims %in_m, 1 : tensor<128xi1> -> tensor<128x1xi1>
    %mmb = tile.broadcast %mme : tensor<128x1xi1> -> tensor<128x256xi1>
    %mne = tile.expand_dims %in_n, 0 : tensor<256xi1> -> tensor<1x256xi1>
    %mnb = tile.broadcast %mne : tensor<1x256xi1> -> tensor<128x256xi1>
    %mask = arith.andi %mmb, %mnb : tensor<128x256xi1>
    tile.store %ptrs, %c, %mask : tensor<128x256x!tile.ptr<bf16>>
    func.return
  }
}
