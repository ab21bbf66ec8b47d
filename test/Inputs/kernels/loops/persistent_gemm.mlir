// A persistent GEMM as a user writes it (Triton's persistent matmul): each program loops
// over output tiles `for tile in range(pid, num_tiles, num_programs)`, the K loop nested
// inside, then the tile's epilogue. C[M,N] (f16) = A[M,K] @ B[N,K]^T, fp32 accumulation;
// A, B read and C written through TMA descriptors (TMA clips the ragged edges).
builtin.module {
  func.func @persistent_gemm(%a_desc: !tile.desc<tensor<64x32xf16>>, %b_desc: !tile.desc<tensor<64x32xf16>>,
                             %c_desc: !tile.desc<tensor<64x64xf16>>, %M: i32, %N: i32, %K: i32)
      attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Mt = arith.constant 64 : i32
    %Nt = arith.constant 64 : i32
    %Kt = arith.constant 32 : i32
    %pid = tile.program_id 0 : i32
    %nprog = tile.num_programs 0 : i32
    %num_pid_m = arith.ceildivsi %M, %Mt : i32
    %num_pid_n = arith.ceildivsi %N, %Nt : i32
    %num_tiles = arith.muli %num_pid_m, %num_pid_n : i32
    %k_tiles = arith.ceildivsi %K, %Kt : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    scf.for %tile = %pid to %num_tiles step %nprog : i32 {
      %pid_m = arith.remsi %tile, %num_pid_m : i32
      %pid_n = arith.divsi %tile, %num_pid_m : i32
      %o_am = arith.muli %pid_m, %Mt : i32
      %o_bn = arith.muli %pid_n, %Nt : i32
      %res:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %acc0, %o_k = %c0)
          -> (tensor<64x64xf32>, i32) : i32 {
        %a = tile.desc_load %a_desc[%o_am, %o_k] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
        %b = tile.desc_load %b_desc[%o_bn, %o_k] : !tile.desc<tensor<64x32xf16>> -> tensor<64x32xf16>
        %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
        %acc2 = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
        %o_k2 = arith.addi %o_k, %Kt : i32
        scf.yield %acc2, %o_k2 : tensor<64x64xf32>, i32
      }
      %c = arith.truncf %res#0 : tensor<64x64xf32> to tensor<64x64xf16>
      tile.desc_store %c_desc[%o_am, %o_bn], %c : !tile.desc<tensor<64x64xf16>>
      scf.yield
    }
    func.return
  }
}
