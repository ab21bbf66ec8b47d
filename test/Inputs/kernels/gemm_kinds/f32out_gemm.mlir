// C[M,N] (f32) = A[M,K] @ B[N,K]^T: f16 inputs, fp32 accumulation, the fp32 accumulator
// stored as it is (torch.mm(a, b.t(), out_dtype=torch.float32)).
// 64x128x64 tiles, one consumer warp group (tile.num_warps = 4: 32 accumulator registers
// per thread); C through a TMA store (512-byte rows; rows and columns past M and N dropped).
// Grid: (cdiv(M, 64) * cdiv(N, 128)), M fastest (pid % cdiv(M, 64) picks the row block).
// Arguments: a (M x K), b (N x K), c (M x N, f32), M, K.
func.func @f32out_gemm(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                       %c_desc: !tile.desc<tensor<64x128xf32>>, %M: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
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
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x128xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<64x128xf32>, i32
  }
  tile.desc_store %c_desc[%om, %on], %r#0 : !tile.desc<tensor<64x128xf32>>
  func.return
}
