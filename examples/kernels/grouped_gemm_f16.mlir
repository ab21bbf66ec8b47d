// Grouped GEMM in the form of torch._grouped_mm (f16): A [sum M_g, K], B [G, N, K], int32 offs
// [G] (cumulative row ends), C [sum M_g, N] with C[rows of g] = A[rows of g] @ B[g]^T. One
// persistent launch over all groups' tiles (128x256x64, 8 consumer warps), a scan over the
// offsets per tile; A through one descriptor, B through a 3-D descriptor (group first), C by a
// masked store clipped at the group's end. Grid: any number of programs (one per SM).
// Arguments: a, b, c (flat), offs, G, M = sum M_g (rows of A and C), N, K.
// Written by wsdialects/runtime/grouped_gemm_kernels.py.
builtin.module {
  func.func @grouped_gemm_f16(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>,
                          %c_ptr: !tile.ptr<f16>, %offs: !tile.ptr<i32>, %G: i32, %M: i32, %N: i32, %K: i32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %cBK = arith.constant 64 : i32
    %cBM = arith.constant 128 : i32
    %cBN = arith.constant 256 : i32
    %pid = tile.program_id 0 : i32
    %nprog = tile.num_programs 0 : i32
    %tiles_n = arith.ceildivsi %N, %cBN : i32
    %k_tiles = arith.ceildivsi %K, %cBK : i32
    // The number of output tiles of all groups: sum over g of cdiv(M_g, 128) * cdiv(N, 256).
    %total:2 = scf.for %j = %c0 to %G step %c1 iter_args(%t = %c0, %start = %c0) -> (i32, i32) : i32 {
      %pe = tile.addptr %offs, %j : !tile.ptr<i32>, i32
      %end = tile.load %pe : !tile.ptr<i32> -> i32
      %mg = arith.subi %end, %start : i32
      %tm = arith.ceildivsi %mg, %cBM : i32
      %tg = arith.muli %tm, %tiles_n : i32
      %t2 = arith.addi %t, %tg : i32
      scf.yield %t2, %end : i32, i32
    }
    scf.for %tile = %pid to %total#0 step %nprog : i32 {
      // The scan: the group whose tiles [base, base + tiles of g) hold %tile, its first row, its
      // end row and the tile's index in the group.
      %f:6 = scf.for %j = %c0 to %G step %c1
          iter_args(%base = %c0, %start = %c0, %g = %c0, %row0 = %c0, %rowend = %c0, %local = %c0)
          -> (i32, i32, i32, i32, i32, i32) : i32 {
        %pe = tile.addptr %offs, %j : !tile.ptr<i32>, i32
        %end = tile.load %pe : !tile.ptr<i32> -> i32
        %mg = arith.subi %end, %start : i32
        %tm = arith.ceildivsi %mg, %cBM : i32
        %tg = arith.muli %tm, %tiles_n : i32
        %next = arith.addi %base, %tg : i32
        %ge = arith.cmpi sge, %tile, %base : i32
        %lt = arith.cmpi slt, %tile, %next : i32
        %hit = arith.andi %ge, %lt : i1
        %in = arith.subi %tile, %base : i32
        %g2 = arith.select %hit, %j, %g : i32
        %r02 = arith.select %hit, %start, %row0 : i32
        %re2 = arith.select %hit, %end, %rowend : i32
        %l2 = arith.select %hit, %in, %local : i32
        scf.yield %next, %end, %g2, %r02, %re2, %l2 : i32, i32, i32, i32, i32, i32
      }
      %mg = arith.subi %f#4, %f#3 : i32
      %tiles_m = arith.ceildivsi %mg, %cBM : i32
      %pm = arith.remsi %f#5, %tiles_m : i32
      %pn = arith.divsi %f#5, %tiles_m : i32
      %om_g = arith.muli %pm, %cBM : i32
      %om = arith.addi %f#3, %om_g : i32
      %on = arith.muli %pn, %cBN : i32
      %zero = arith.constant dense<0.0> : tensor<128x256xf32>
      %r:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x256xf32>, i32) : i32 {
        %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
        %b = tile.desc_load %b_desc[%f#2, %on, %ok] : !tile.desc<tensor<256x64xf16>> -> tensor<256x64xf16>
        %bt = tile.trans %b [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
        %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
        %ok2 = arith.addi %ok, %cBK : i32
        scf.yield %d, %ok2 : tensor<128x256xf32>, i32
      }
      %c = arith.truncf %r#0 : tensor<128x256xf32> to tensor<128x256xf16>
      %rm = tile.make_range 0 to 128 : tensor<128xi32>
      %rn = tile.make_range 0 to 256 : tensor<256xi32>
      %om_v = tile.splat %om : i32 -> tensor<128xi32>
      %on_v = tile.splat %on : i32 -> tensor<256xi32>
      %rows = arith.addi %om_v, %rm : tensor<128xi32>
      %cols = arith.addi %on_v, %rn : tensor<256xi32>
      %N_v = tile.splat %N : i32 -> tensor<128xi32>
      %row_off = arith.muli %rows, %N_v : tensor<128xi32>
      %row2 = tile.expand_dims %row_off, 1 : tensor<128xi32> -> tensor<128x1xi32>
      %col2 = tile.expand_dims %cols, 0 : tensor<256xi32> -> tensor<1x256xi32>
      %rowb = tile.broadcast %row2 : tensor<128x1xi32> -> tensor<128x256xi32>
      %colb = tile.broadcast %col2 : tensor<1x256xi32> -> tensor<128x256xi32>
      %off = arith.addi %rowb, %colb : tensor<128x256xi32>
      %base_p = tile.splat %c_ptr : !tile.ptr<f16> -> tensor<128x256x!tile.ptr<f16>>
      %ptrs = tile.addptr %base_p, %off : tensor<128x256x!tile.ptr<f16>>, tensor<128x256xi32>
      %row_end = arith.minsi %f#4, %M : i32
      %end_v = tile.splat %row_end : i32 -> tensor<128xi32>
      %Nc_v = tile.splat %N : i32 -> tensor<256xi32>
      %in_m = arith.cmpi slt, %rows, %end_v : tensor<128xi32>
      %in_n = arith.cmpi slt, %cols, %Nc_v : tensor<256xi32>
      %in_m2 = tile.expand_dims %in_m, 1 : tensor<128xi1> -> tensor<128x1xi1>
      %in_n2 = tile.expand_dims %in_n, 0 : tensor<256xi1> -> tensor<1x256xi1>
      %mmb = tile.broadcast %in_m2 : tensor<128x1xi1> -> tensor<128x256xi1>
      %mnb = tile.broadcast %in_n2 : tensor<1x256xi1> -> tensor<128x256xi1>
      %mask = arith.andi %mmb, %mnb : tensor<128x256xi1>
      tile.store %ptrs, %c, %mask : tensor<128x256x!tile.ptr<f16>>
    }
    func.return
  }
}
