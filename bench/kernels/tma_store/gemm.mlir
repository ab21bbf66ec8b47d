// bench/kernels/tma_store/gemm.mlir: examples/kernels/gemm.mlir with its epilogue as one TMA store
// of the fp16 tile (asynchronous: the consumers only stage it in shared memory) instead of the
// masked pointer store: what converting the pointer store into a TMA store would give the bundled
// GEMM. Grid and arguments as the original (c as a descriptor; %stride_cm unused, the descriptor
// carries the row stride; rows past M and columns past N are clipped by TMA as the mask drops them).
builtin.module {
  func.func @matmul(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>,
                    %c_desc: !tile.desc<tensor<128x256xf16>>, %M: i32, %N: i32, %K: i32, %stride_cm: i32)
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
    tile.desc_store %c_desc[%o_am, %o_bn], %c : !tile.desc<tensor<128x256xf16>>
    func.return
  }
}
