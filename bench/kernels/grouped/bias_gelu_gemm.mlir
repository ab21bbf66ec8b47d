// bench/kernels/grouped: test/Inputs/kernels/gemm_kinds/bias_gelu_gemm.mlir with a 1-D grid
// decoded in groups of 8 row blocks (Triton's GROUP_M): programs that run at the same time share
// 8 row blocks of A and about 16 column blocks of B, instead of all of A (a measurement of what an
// L2-friendly tile order gives this L2-bound kernel, bench/results/2026-11-26-gemm-kinds-notes.md).
// Grid: (cdiv(M, 128) * cdiv(N, 128)). Arguments as the original.
func.func @bias_gelu_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                          %bias: !tile.ptr<f16>, %c_ptr: !tile.ptr<f16>,
                          %M: i32, %N: i32, %K: i32, %stride_cm: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c8 = arith.constant 8 : i32
  %pid = tile.program_id 0 : i32
  %npm = arith.ceildivsi %M, %c128 : i32
  %npn = arith.ceildivsi %N, %c128 : i32
  %width = arith.muli %npn, %c8 : i32
  %group = arith.divsi %pid, %width : i32
  %first = arith.muli %group, %c8 : i32
  %left = arith.subi %npm, %first : i32
  %gsz = arith.minsi %left, %c8 : i32
  %in_group = arith.remsi %pid, %width : i32
  %dm = arith.remsi %in_group, %gsz : i32
  %pm = arith.addi %first, %dm : i32
  %pn = arith.divsi %in_group, %gsz : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c128 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x128xf32>, i32
  }
  // bias row, masked at N
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
  %x = arith.addf %r#0, %bb : tensor<128x128xf32>
  // gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  %half = arith.constant dense<0.5> : tensor<128x128xf32>
  %one = arith.constant dense<1.0> : tensor<128x128xf32>
  %k0 = arith.constant dense<0.7978845608> : tensor<128x128xf32>
  %k1 = arith.constant dense<0.044715> : tensor<128x128xf32>
  %x2 = arith.mulf %x, %x : tensor<128x128xf32>
  %p = math.fma %k1, %x2, %one : tensor<128x128xf32>
  %xp = arith.mulf %x, %p : tensor<128x128xf32>
  %u = arith.mulf %k0, %xp : tensor<128x128xf32>
  %t = math.tanh %u : tensor<128x128xf32>
  %hx = arith.mulf %half, %x : tensor<128x128xf32>
  %g = math.fma %hx, %t, %hx : tensor<128x128xf32>
  %c = arith.truncf %g : tensor<128x128xf32> to tensor<128x128xf16>
  // masked pointer store
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
