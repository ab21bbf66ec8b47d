// Split-K GEMM, C += A @ B^T (f16 in, f32 C): program (m, n, s) multiplies the s-th slice of
// K (`%kt` K-tiles of 64) for the 128x128 tile (m, n) and adds its partial tile into C with a
// TMA reduce-add (tile.desc_store add), so the slices of one tile meet in memory. C starts
// as whatever the caller put there (zeros for a plain product). Grid: (cdiv(M, 128),
// cdiv(N, 128), cdiv(cdiv(K, 64), %kt)); rows and columns past M and N are dropped by TMA, and
// K-tiles past K read zeros.
func.func @splitk_reduce_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                              %c_desc: !tile.desc<tensor<128x128xf32>>, %kt: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %ps = tile.program_id 2 : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c128 : i32
  %slice = arith.muli %ps, %kt : i32
  %k0 = arith.muli %slice, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %k0) -> (tensor<128x128xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x128xf32>, i32
  }
  tile.desc_store add %c_desc[%om, %on], %r#0 : !tile.desc<tensor<128x128xf32>>
  func.return
}
