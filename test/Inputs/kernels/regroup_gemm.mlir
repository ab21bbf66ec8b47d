// S = A[M,K] @ B[N,K]^T for N <= 128 (one tile of columns), then an epilogue that
// regroups tiles the way Triton kernels do (tl.reshape to add or drop a size-1 dim,
// tl.join / tl.split along a minor dim of 2):
//   rowmax[M] (f32)     = the row maxima of S (masked to the N columns), reshaped
//                          128 -> 128x1 to broadcast and back 128x1 -> 128 to store;
//   out[M, N, 2] (f32)  = (sh - e, e) interleaved, sh = S - rowmax, e = exp(sh), where
//                          (sh, e) are joined, split again and the difference re-joined.
func.func @regroup_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                        %out: !tile.ptr<f32>, %rowmax: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
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
  %col_ok2 = tile.reshape %col_ok : tensor<128xi1> -> tensor<1x128xi1>
  %col_okb = tile.broadcast %col_ok2 : tensor<1x128xi1> -> tensor<128x128xi1>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %sm = arith.select %col_okb, %s, %ninf : tensor<128x128xi1>, tensor<128x128xf32>
  %mx = tile.reduce max %sm, 1 : tensor<128x128xf32> -> tensor<128xf32>
  %mx2 = tile.reshape %mx : tensor<128xf32> -> tensor<128x1xf32>
  %mxb = tile.broadcast %mx2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %sh = arith.subf %s, %mxb : tensor<128x128xf32>
  %e = math.exp %sh : tensor<128x128xf32>
  %j = tile.join %sh, %e : tensor<128x128xf32> -> tensor<128x128x2xf32>
  %lo, %hi = tile.split %j : tensor<128x128x2xf32> -> tensor<128x128xf32>
  %dif = arith.subf %lo, %hi : tensor<128x128xf32>
  %j2 = tile.join %dif, %hi : tensor<128x128xf32> -> tensor<128x128x2xf32>
  // rows of this program, masked to M
  %rm = tile.make_range 0 to 128 : tensor<128xi32>
  %omv = tile.splat %om : i32 -> tensor<128xi32>
  %rows = arith.addi %omv, %rm : tensor<128xi32>
  %Mv = tile.splat %M : i32 -> tensor<128xi32>
  %row_ok = arith.cmpi slt, %rows, %Mv : tensor<128xi32>
  %mxr = tile.reshape %mx2 : tensor<128x1xf32> -> tensor<128xf32>
  %mp0 = tile.splat %rowmax : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %mp = tile.addptr %mp0, %rows : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %mp, %mxr, %row_ok : tensor<128x!tile.ptr<f32>>
  // out[rows, cols, h] = j2 where rows < M and cols < N (row stride 2N)
  %N2 = arith.muli %N, %c2 : i32
  %Ns = tile.splat %N2 : i32 -> tensor<128xi32>
  %roff = arith.muli %rows, %Ns : tensor<128xi32>
  %roff2 = tile.reshape %roff : tensor<128xi32> -> tensor<128x1x1xi32>
  %roffb = tile.broadcast %roff2 : tensor<128x1x1xi32> -> tensor<128x128x2xi32>
  %two = arith.constant dense<2> : tensor<128xi32>
  %cn = arith.muli %rn, %two : tensor<128xi32>
  %cn2 = tile.reshape %cn : tensor<128xi32> -> tensor<1x128x1xi32>
  %cnb = tile.broadcast %cn2 : tensor<1x128x1xi32> -> tensor<128x128x2xi32>
  %h = tile.make_range 0 to 2 : tensor<2xi32>
  %h2 = tile.reshape %h : tensor<2xi32> -> tensor<1x1x2xi32>
  %hb = tile.broadcast %h2 : tensor<1x1x2xi32> -> tensor<128x128x2xi32>
  %off0 = arith.addi %roffb, %cnb : tensor<128x128x2xi32>
  %off = arith.addi %off0, %hb : tensor<128x128x2xi32>
  %pp0 = tile.splat %out : !tile.ptr<f32> -> tensor<128x128x2x!tile.ptr<f32>>
  %pp = tile.addptr %pp0, %off : tensor<128x128x2x!tile.ptr<f32>>, tensor<128x128x2xi32>
  %row_ok2 = tile.reshape %row_ok : tensor<128xi1> -> tensor<128x1x1xi1>
  %row_okb = tile.broadcast %row_ok2 : tensor<128x1x1xi1> -> tensor<128x128x2xi1>
  %col_ok3 = tile.reshape %col_ok : tensor<128xi1> -> tensor<1x128x1xi1>
  %col_okc = tile.broadcast %col_ok3 : tensor<1x128x1xi1> -> tensor<128x128x2xi1>
  %ok2 = arith.andi %row_okb, %col_okc : tensor<128x128x2xi1>
  tile.store %pp, %j2, %ok2 : tensor<128x128x2x!tile.ptr<f32>>
  func.return
}
