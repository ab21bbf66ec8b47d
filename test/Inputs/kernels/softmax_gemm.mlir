// P[M,N] (f16) = the row softmax of S = A[M,K] @ B[N,K]^T for N <= 128 (one tile of
// columns holds a whole row; columns >= N are masked to -inf), and rowmax[M] (f32) =
// the row maxima of S. The epilogue reduces along the rows of the accumulator (max,
// then sum of exp) and stores a 1-D row vector besides the 2-D tile.
func.func @softmax_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                        %p_ptr: !tile.ptr<f16>, %rowmax: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %om = arith.muli %pm, %c128 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %s = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %x = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %yt = tile.trans %y [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %x, %yt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %rn = tile.make_range 0 to 128 : tensor<128xi32>
  %Nv = tile.splat %N : i32 -> tensor<128xi32>
  %col_ok = arith.cmpi slt, %rn, %Nv : tensor<128xi32>
  %col_ok2 = tile.expand_dims %col_ok, 0 : tensor<128xi1> -> tensor<1x128xi1>
  %col_okb = tile.broadcast %col_ok2 : tensor<1x128xi1> -> tensor<128x128xi1>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %sm = arith.select %col_okb, %s, %ninf : tensor<128x128xi1>, tensor<128x128xf32>
  %mx = tile.reduce max %sm, 1 : tensor<128x128xf32> -> tensor<128xf32>
  %mx2 = tile.expand_dims %mx, 1 : tensor<128xf32> -> tensor<128x1xf32>
  %mxb = tile.broadcast %mx2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %sh = arith.subf %sm, %mxb : tensor<128x128xf32>
  %e = math.exp %sh : tensor<128x128xf32>
  %sum = tile.reduce sum %e, 1 : tensor<128x128xf32> -> tensor<128xf32>
  %sum2 = tile.expand_dims %sum, 1 : tensor<128xf32> -> tensor<128x1xf32>
  %sumb = tile.broadcast %sum2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %p = arith.divf %e, %sumb : tensor<128x128xf32>
  %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
  // rows of this program, masked to M
  %rm = tile.make_range 0 to 128 : tensor<128xi32>
  %omv = tile.splat %om : i32 -> tensor<128xi32>
  %rows = arith.addi %omv, %rm : tensor<128xi32>
  %Mv = tile.splat %M : i32 -> tensor<128xi32>
  %row_ok = arith.cmpi slt, %rows, %Mv : tensor<128xi32>
  %mp0 = tile.splat %rowmax : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %mp = tile.addptr %mp0, %rows : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %mp, %mx, %row_ok : tensor<128x!tile.ptr<f32>>
  // P[rows, cols] = p16 where rows < M and cols < N (row stride N)
  %Ns = tile.splat %N : i32 -> tensor<128xi32>
  %roff = arith.muli %rows, %Ns : tensor<128xi32>
  %roff2 = tile.expand_dims %roff, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<128x1xi32> -> tensor<128x128xi32>
  %rn2 = tile.expand_dims %rn, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %rnb = tile.broadcast %rn2 : tensor<1x128xi32> -> tensor<128x128xi32>
  %off = arith.addi %roffb, %rnb : tensor<128x128xi32>
  %pp0 = tile.splat %p_ptr : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>>
  %pp = tile.addptr %pp0, %off : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
  %row_ok2 = tile.expand_dims %row_ok, 1 : tensor<128xi1> -> tensor<128x1xi1>
  %row_okb = tile.broadcast %row_ok2 : tensor<128x1xi1> -> tensor<128x128xi1>
  %ok2 = arith.andi %row_okb, %col_okb : tensor<128x128xi1>
  tile.store %pp, %p16, %ok2 : tensor<128x128x!tile.ptr<f16>>
  func.return
}
