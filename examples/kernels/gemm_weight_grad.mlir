// dW[M,N] (f16) = X^T @ dY with X [K, M] and dY [K, N] row-major (a weight gradient: the
// K = batch dimension is the rows of both), fp32 accumulation. X^T is tile.trans of X's
// 64x128 TMA tile: an M-contiguous A operand, which wgmma reads with its transpose-A bit;
// dY's 64x256 tile is an N-contiguous B. TMA zero-fills past K, M and N; dW is written through
// a pointer tile with masks. Grid: ceil(M / 128) * ceil(N / 256).
builtin.module {
  func.func @weight_grad(%x_desc: !tile.desc<tensor<64x128xf16>>, %dy_desc: !tile.desc<tensor<64x256xf16>>,
                    %dw_ptr: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32, %stride_wm: i32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Mt = arith.constant 128 : i32
    %Nt = arith.constant 256 : i32
    %Kt = arith.constant 64 : i32
    %pid = "tile.program_id"() <{axis = 0 : i32}> : () -> i32
    %num_pid_m = arith.ceildivsi %M, %Mt : i32
    %pid_m = arith.remsi %pid, %num_pid_m : i32
    %pid_n = arith.divsi %pid, %num_pid_m : i32
    %o_m = arith.muli %pid_m, %Mt : i32
    %o_n = arith.muli %pid_n, %Nt : i32
    %k_tiles = arith.ceildivsi %K, %Kt : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %res:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %acc0, %o_k = %c0) -> (tensor<128x256xf32>, i32) : i32 {
      %x = "tile.desc_load"(%x_desc, %o_k, %o_m) : (!tile.desc<tensor<64x128xf16>>, i32, i32) -> tensor<64x128xf16>
      %dy = "tile.desc_load"(%dy_desc, %o_k, %o_n) : (!tile.desc<tensor<64x256xf16>>, i32, i32) -> tensor<64x256xf16>
      %xt = "tile.trans"(%x) <{order = array<i32: 1, 0>}> : (tensor<64x128xf16>) -> tensor<128x64xf16>
      %acc2 = "tile.dot"(%xt, %dy, %acc) : (tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
      %o_k2 = arith.addi %o_k, %Kt : i32
      scf.yield %acc2, %o_k2 : tensor<128x256xf32>, i32
    }
    %c = arith.truncf %res#0 : tensor<128x256xf32> to tensor<128x256xf16>
    %rm = "tile.make_range"() <{start = 0 : i32, end = 128 : i32}> : () -> tensor<128xi32>
    %rn = "tile.make_range"() <{start = 0 : i32, end = 256 : i32}> : () -> tensor<256xi32>
    %o_m_v = "tile.splat"(%o_m) : (i32) -> tensor<128xi32>
    %o_n_v = "tile.splat"(%o_n) : (i32) -> tensor<256xi32>
    %offs_m = arith.addi %o_m_v, %rm : tensor<128xi32>
    %offs_n = arith.addi %o_n_v, %rn : tensor<256xi32>
    %scm = "tile.splat"(%stride_wm) : (i32) -> tensor<128xi32>
    %row_off = arith.muli %offs_m, %scm : tensor<128xi32>
    %row2 = "tile.expand_dims"(%row_off) <{axis = 1 : i32}> : (tensor<128xi32>) -> tensor<128x1xi32>
    %col2 = "tile.expand_dims"(%offs_n) <{axis = 0 : i32}> : (tensor<256xi32>) -> tensor<1x256xi32>
    %rowb = "tile.broadcast"(%row2) : (tensor<128x1xi32>) -> tensor<128x256xi32>
    %colb = "tile.broadcast"(%col2) : (tensor<1x256xi32>) -> tensor<128x256xi32>
    %off = arith.addi %rowb, %colb : tensor<128x256xi32>
    %base = "tile.splat"(%dw_ptr) : (!tile.ptr<f16>) -> tensor<128x256x!tile.ptr<f16>>
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
