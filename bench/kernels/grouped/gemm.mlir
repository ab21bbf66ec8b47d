// bench/kernels/grouped/gemm.mlir: examples/kernels/gemm.mlir with its 1-D grid decoded in groups
// of 8 row blocks (Triton's GROUP_M) instead of row blocks fastest: what an L2-grouped order
// would give the bundled GEMM (ws-persistent orders that decode in bands itself since 2026-11-27). Grid and arguments as
// the original.
builtin.module {
  func.func @matmul(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>,
                    %c_ptr: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %stride_cm: i32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Mt = arith.constant 128 : i32
    %Nt = arith.constant 256 : i32
    %Kt = arith.constant 64 : i32
    %pid = "tile.program_id"() <{axis = 0 : i32}> : () -> i32
    %num_pid_m = arith.ceildivsi %M, %Mt : i32
    %c8 = arith.constant 8 : i32
    %num_pid_n = arith.ceildivsi %N, %Nt : i32
    %width = arith.muli %num_pid_n, %c8 : i32
    %group = arith.divsi %pid, %width : i32
    %first = arith.muli %group, %c8 : i32
    %left = arith.subi %num_pid_m, %first : i32
    %gsz = arith.minsi %left, %c8 : i32
    %in_group = arith.remsi %pid, %width : i32
    %dm = arith.remsi %in_group, %gsz : i32
    %pid_m = arith.addi %first, %dm : i32
    %pid_n = arith.divsi %in_group, %gsz : i32
    %o_am = arith.muli %pid_m, %Mt : i32
    %o_bn = arith.muli %pid_n, %Nt : i32
    %k_tiles = arith.ceildivsi %K, %Kt : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %res:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %acc0, %o_k = %c0) -> (tensor<128x256xf32>, i32) : i32 {
      %a = "tile.desc_load"(%a_desc, %o_am, %o_k) : (!tile.desc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16>
      %b = "tile.desc_load"(%b_desc, %o_bn, %o_k) : (!tile.desc<tensor<256x64xf16>>, i32, i32) -> tensor<256x64xf16>
      %bt = "tile.trans"(%b) <{order = array<i32: 1, 0>}> : (tensor<256x64xf16>) -> tensor<64x256xf16>
      %acc2 = "tile.dot"(%a, %bt, %acc) : (tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
      %o_k2 = arith.addi %o_k, %Kt : i32
      scf.yield %acc2, %o_k2 : tensor<128x256xf32>, i32
    }
    %c = arith.truncf %res#0 : tensor<128x256xf32> to tensor<128x256xf16>
    %rm = "tile.make_range"() <{start = 0 : i32, end = 128 : i32}> : () -> tensor<128xi32>
    %rn = "tile.make_range"() <{start = 0 : i32, end = 256 : i32}> : () -> tensor<256xi32>
    %o_am_v = "tile.splat"(%o_am) : (i32) -> tensor<128xi32>
    %o_bn_v = "tile.splat"(%o_bn) : (i32) -> tensor<256xi32>
    %offs_m = arith.addi %o_am_v, %rm : tensor<128xi32>
    %offs_n = arith.addi %o_bn_v, %rn : tensor<256xi32>
    %scm = "tile.splat"(%stride_cm) : (i32) -> tensor<128xi32>
    %row_off = arith.muli %offs_m, %scm : tensor<128xi32>
    %row2 = "tile.expand_dims"(%row_off) <{axis = 1 : i32}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %col2 = "tile.expand_dims"(%offs_n) <{axis = 0 : i32}> : (tensor<256xi32>) -> tensor<1x256xi32>
    %rowb = "tile.broadcast"(%row2) : (tensor<128x1xi32>) -> tensor<128x256xi32>
    %colb = "tile.broadcast"(%col2) : (tensor<1x256xi32>) -> tensor<128x256xi32>
    %off = arith.addi %rowb, %colb : tensor<128x256xi32>
    %base = "tile.splat"(%c_ptr) : (!tile.ptr<f16>) -> tensor<128x256x!tile.ptr<f16>>
    %ptrs = "tile.addptr"(%base, %off) : (tensor<128x256x!tile.ptr<f16>>, tensor<128x256xi32>) -> tensor<128x256x!tile.ptr<f16>>
    %Mv = "tile.splat"(%M) : (i32) -> tensor<128xi32>
    %Nv = "tile.splat"(%N) : (i32) -> tensor<256xi32>
    %mm = "arith.cmpi"(%offs_m, %Mv) <{predicate = 2 : i64}> : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %mn = "arith.cmpi"(%offs_n, %Nv) <{predicate = 2 : i64}> : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi1>
    %mm2 = "tile.expand_dims"(%mm) <{axis = 1 : i32}> : (tensor<128xi1>) -> tensor<128x1xi1>
    %mn2 = "tile.expand_dims"(%mn) <{axis = 0 : i32}> : (tensor<256xi1>) -> tensor<1x256xi1>
    %mmb = "tile.broadcast"(%mm2) : (tensor<128x1xi1>) -> tensor<128x256xi1>
    %mnb = "tile.broadcast"(%mn2) : (tensor<1x256xi1>) -> tensor<128x256xi1>
    %mask = arith.andi %mmb, %mnb : tensor<128x256xi1>
    "tile.store"(%ptrs, %c, %mask) : (tensor<128x256x!tile.ptr<f16>>, tensor<128x256xf16>, tensor<128x256xi1>) -> ()
    func.return
  }
}
