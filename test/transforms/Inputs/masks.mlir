// Selects on masks of index tiles, for ws-version-masks (lit test ws-version-masks.mlir and
// the semantic test test_version_masks.py): a key-bound mask (1-D, broadcast), a causal
// mask with an offset (2-D) and-ed with it, an "outside" mask whose select keeps the other
// operand, a strided index (muli) and subtraction, an unsigned compare and a mask from
// data (both left per element), and a shifted index whose tile may wrap around i32.
// Grid (cdiv(M, 64), cdiv(N, 64)); X, O are MxN f32.
builtin.module {
  func.func @masks(%x_desc: !tile.desc<tensor<64x64xf32>>, %o_desc: !tile.desc<tensor<64x64xf32>>,
                   %L: i32, %diag: i32, %shift: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %pm = tile.program_id 0 : i32
    %pn = tile.program_id 1 : i32
    %om = arith.muli %pm, %c64 : i32
    %on = arith.muli %pn, %c64 : i32
    %x = tile.desc_load %x_desc[%om, %on] : !tile.desc<tensor<64x64xf32>> -> tensor<64x64xf32>
    %range = tile.make_range 0 to 64 : tensor<64xi32>
    %om_v = tile.splat %om : i32 -> tensor<64xi32>
    %on_v = tile.splat %on : i32 -> tensor<64xi32>
    %rows = arith.addi %om_v, %range : tensor<64xi32>
    %cols = arith.addi %on_v, %range : tensor<64xi32>
    %L_v = tile.splat %L : i32 -> tensor<64xi32>
    %low = arith.constant dense<-1.0e+04> : tensor<64x64xf32>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    // keys inside L
    %in_n = arith.cmpi slt, %cols, %L_v : tensor<64xi32>
    %in_n2 = tile.expand_dims %in_n, 0 : tensor<64xi1> -> tensor<1x64xi1>
    %in_nb = tile.broadcast %in_n2 : tensor<1x64xi1> -> tensor<64x64xi1>
    %a = arith.select %in_nb, %x, %low : tensor<64x64xi1>, tensor<64x64xf32>
    // causal with an offset: rows + diag >= cols, and the key bound
    %diag_v = tile.splat %diag : i32 -> tensor<64xi32>
    %rows_d = arith.addi %rows, %diag_v : tensor<64xi32>
    %r2 = tile.expand_dims %rows_d, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rb = tile.broadcast %r2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %c2d = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tile.broadcast %c2d : tensor<1x64xi32> -> tensor<64x64xi32>
    %causal = arith.cmpi sge, %rb, %cb : tensor<64x64xi32>
    %both = arith.andi %causal, %in_nb : tensor<64x64xi1>
    %b = arith.select %both, %a, %low : tensor<64x64xi1>, tensor<64x64xf32>
    // outside the rows 2 * r - 1 < L: the select keeps %b where the mask is false
    %two = arith.constant dense<2> : tensor<64xi32>
    %one = arith.constant dense<1> : tensor<64xi32>
    %r2x = arith.muli %rows, %two : tensor<64xi32>
    %r2x1 = arith.subi %r2x, %one : tensor<64xi32>
    %out_m = arith.cmpi sge, %r2x1, %L_v : tensor<64xi32>
    %out_m2 = tile.expand_dims %out_m, 1 : tensor<64xi1> -> tensor<64x1xi1>
    %out_mb = tile.broadcast %out_m2 : tensor<64x1xi1> -> tensor<64x64xi1>
    %c = arith.select %out_mb, %zero, %b : tensor<64x64xi1>, tensor<64x64xf32>
    // unsigned: left per element
    %u = arith.cmpi ult, %cols, %L_v : tensor<64xi32>
    %u2 = tile.expand_dims %u, 0 : tensor<64xi1> -> tensor<1x64xi1>
    %ub = tile.broadcast %u2 : tensor<1x64xi1> -> tensor<64x64xi1>
    %d = arith.select %ub, %c, %low : tensor<64x64xi1>, tensor<64x64xf32>
    // a mask from data: left per element
    %pos = arith.cmpf ogt, %x, %zero : tensor<64x64xf32>
    %e = arith.select %pos, %d, %zero : tensor<64x64xi1>, tensor<64x64xf32>
    // a shifted index (the tile may wrap around i32): versioned, the test checks first <= last
    %shift_v = tile.splat %shift : i32 -> tensor<64xi32>
    %cols_s = arith.addi %cols, %shift_v : tensor<64xi32>
    %in_s = arith.cmpi slt, %cols_s, %L_v : tensor<64xi32>
    %in_s2 = tile.expand_dims %in_s, 0 : tensor<64xi1> -> tensor<1x64xi1>
    %in_sb = tile.broadcast %in_s2 : tensor<1x64xi1> -> tensor<64x64xi1>
    %f = arith.select %in_sb, %e, %low : tensor<64x64xi1>, tensor<64x64xf32>
    tile.desc_store %o_desc[%om, %on], %f : !tile.desc<tensor<64x64xf32>>
    func.return
  }
}
