// Batched C[b] = A[b] @ B[b]^T with A, B, C stored as [batch*rows, cols] 2-D arrays.
// Program ids are recomputed inside the loop (the batch row offset), the K offset is
// an iter_arg, and C is written through a TMA store. Grid: (M/64, N/64, batch).
func.func @batched_gemm(%a_desc: !tile.desc<tensor<64x32xbf16>>, %b_desc: !tile.desc<tensor<64x32xbf16>>,
                        %c_desc: !tile.desc<tensor<64x64xf32>>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %kt = arith.ceildivsi %K, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %pb = tile.program_id 2 : i32
    %arow0 = arith.muli %pb, %M : i32
    %am = arith.muli %pm, %c64 : i32
    %arow = arith.addi %arow0, %am : i32
    %brow0 = arith.muli %pb, %N : i32
    %bn = arith.muli %pn, %c64 : i32
    %brow = arith.addi %brow0, %bn : i32
    %x = tile.desc_load %a_desc[%arow, %ok] : !tile.desc<tensor<64x32xbf16>> -> tensor<64x32xbf16>
    %y = tile.desc_load %b_desc[%brow, %ok] : !tile.desc<tensor<64x32xbf16>> -> tensor<64x32xbf16>
    %yt = tile.trans %y [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %x, %yt, %acc : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %ok2 = arith.addi %ok, %c32 : i32
    scf.yield %d, %ok2 : tensor<64x64xf32>, i32
  }
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %pb = tile.program_id 2 : i32
  %crow0 = arith.muli %pb, %M : i32
  %cm = arith.muli %pm, %c64 : i32
  %crow = arith.addi %crow0, %cm : i32
  %cn = arith.muli %pn, %c64 : i32
  tile.desc_store %c_desc[%crow, %cn], %r#0 : !tile.desc<tensor<64x64xf32>>
  func.return
}
