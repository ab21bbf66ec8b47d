// Row softmax in two passes over the columns (a two-pass kernel, as Triton users write
// softmax and layer norm when a row does not fit one tile): the first loop reads X to
// compute each row's max and sum of exp (online), the second reads X again and writes
// Y = exp(X - max) / sum. X, Y are [M, N] f16; one program per 64 rows; columns >= N are
// masked to -inf in the first pass, and TMA clips the second pass's stores at N.
builtin.module {
  func.func @softmax_two_pass(%x_desc: !tile.desc<tensor<64x128xf16>>, %y_desc: !tile.desc<tensor<64x128xf16>>,
                              %N: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %Bm = arith.constant 64 : i32
    %Bn = arith.constant 128 : i32
    %pid = tile.program_id 0 : i32
    %row = arith.muli %pid, %Bm : i32
    %n_tiles = arith.ceildivsi %N, %Bn : i32
    %cols = tile.make_range 0 to 128 : tensor<128xi32>
    %Nv = tile.splat %N : i32 -> tensor<128xi32>
    %ninf = arith.constant dense<0xFF800000> : tensor<64x128xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<64xf32>
    %l0 = arith.constant dense<0.000000e+00> : tensor<64xf32>
    %r:3 = scf.for %j = %c0 to %n_tiles step %c1 iter_args(%m = %m0, %l = %l0, %off = %c0)
        -> (tensor<64xf32>, tensor<64xf32>, i32) : i32 {
      %x = tile.desc_load %x_desc[%row, %off] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
      %xf = arith.extf %x : tensor<64x128xf16> to tensor<64x128xf32>
      %off_v = tile.splat %off : i32 -> tensor<128xi32>
      %cn = arith.addi %off_v, %cols : tensor<128xi32>
      %in = arith.cmpi slt, %cn, %Nv : tensor<128xi32>
      %in2 = tile.expand_dims %in, 0 : tensor<128xi1> -> tensor<1x128xi1>
      %inb = tile.broadcast %in2 : tensor<1x128xi1> -> tensor<64x128xi1>
      %xm = arith.select %inb, %xf, %ninf : tensor<64x128xi1>, tensor<64x128xf32>
      %tmax = tile.reduce max %xm, 1 : tensor<64x128xf32> -> tensor<64xf32>
      %m_new = arith.maximumf %m, %tmax : tensor<64xf32>
      %m_e = tile.expand_dims %m_new, 1 : tensor<64xf32> -> tensor<64x1xf32>
      %m_b = tile.broadcast %m_e : tensor<64x1xf32> -> tensor<64x128xf32>
      %xc = arith.subf %xm, %m_b : tensor<64x128xf32>
      %p = math.exp %xc : tensor<64x128xf32>
      %tsum = tile.reduce sum %p, 1 : tensor<64x128xf32> -> tensor<64xf32>
      %m_d = arith.subf %m, %m_new : tensor<64xf32>
      %alpha = math.exp %m_d : tensor<64xf32>
      %l_s = arith.mulf %l, %alpha : tensor<64xf32>
      %l_new = arith.addf %l_s, %tsum : tensor<64xf32>
      %off2 = arith.addi %off, %Bn : i32
      scf.yield %m_new, %l_new, %off2 : tensor<64xf32>, tensor<64xf32>, i32
    }
    %mx_e = tile.expand_dims %r#0, 1 : tensor<64xf32> -> tensor<64x1xf32>
    %mx_b = tile.broadcast %mx_e : tensor<64x1xf32> -> tensor<64x128xf32>
    %sm_e = tile.expand_dims %r#1, 1 : tensor<64xf32> -> tensor<64x1xf32>
    %sm_b = tile.broadcast %sm_e : tensor<64x1xf32> -> tensor<64x128xf32>
    %s = scf.for %j2 = %c0 to %n_tiles step %c1 iter_args(%off_y = %c0) -> (i32) : i32 {
      %x2 = tile.desc_load %x_desc[%row, %off_y] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
      %xf2 = arith.extf %x2 : tensor<64x128xf16> to tensor<64x128xf32>
      %xc2 = arith.subf %xf2, %mx_b : tensor<64x128xf32>
      %e2 = math.exp %xc2 : tensor<64x128xf32>
      %y = arith.divf %e2, %sm_b : tensor<64x128xf32>
      %y16 = arith.truncf %y : tensor<64x128xf32> to tensor<64x128xf16>
      tile.desc_store %y_desc[%row, %off_y], %y16 : !tile.desc<tensor<64x128xf16>>
      %off_y2 = arith.addi %off_y, %Bn : i32
      scf.yield %off_y2 : i32
    }
    func.return
  }
}
