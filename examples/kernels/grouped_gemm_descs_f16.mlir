// Grouped GEMM over separate tensors (f16): group g multiplies its own A_g [M_g, K_g] by B_g
// [N_g, K_g]^T into C_g [M_g, N_g], every size per group. One descriptor per group and operand,
// built by the launch from the lists of tensors (!tile.descs, tile.desc_index); sizes is int32
// [G, 3] (M_g, N_g, K_g). One persistent launch over all groups' tiles (128x256x64, 8
// consumer warps), a scan over the sizes per tile; C_g is written by a TMA store that its own
// descriptor clips at M_g and N_g. Grid: any number of programs (one per SM).
// Arguments: a_list, b_list, c_list, sizes, G.
// Written by wsdialects/runtime/grouped_gemm_kernels.py.
builtin.module {
  func.func @grouped_gemm_descs_f16(%a_descs: !tile.descs<tensor<128x64xf16>>, %b_descs: !tile.descs<tensor<256x64xf16>>,
                   %c_descs: !tile.descs<tensor<128x256xf16>>, %sizes: !tile.ptr<i32>, %G: i32)
      attributes {tile.kernel, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %cBK = arith.constant 64 : i32
    %cBM = arith.constant 128 : i32
    %cBN = arith.constant 256 : i32
    %pid = tile.program_id 0 : i32
    %nprog = tile.num_programs 0 : i32
    // The number of output tiles of all groups: sum over g of cdiv(M_g, 128) * cdiv(N_g, 256).
    %total = scf.for %j = %c0 to %G step %c1 iter_args(%t = %c0) -> (i32) : i32 {
      %row = arith.muli %j, %c3 : i32
      %pm = tile.addptr %sizes, %row : !tile.ptr<i32>, i32
      %m = tile.load %pm : !tile.ptr<i32> -> i32
      %col_n = arith.addi %row, %c1 : i32
      %pn = tile.addptr %sizes, %col_n : !tile.ptr<i32>, i32
      %n = tile.load %pn : !tile.ptr<i32> -> i32
      %tm = arith.ceildivsi %m, %cBM : i32
      %tn = arith.ceildivsi %n, %cBN : i32
      %tg = arith.muli %tm, %tn : i32
      %t2 = arith.addi %t, %tg : i32
      scf.yield %t2 : i32
    }
    scf.for %tile = %pid to %total step %nprog : i32 {
      // The scan: the group whose tiles [base, base + tiles of g) hold %tile, its sizes and the
      // tile's index in the group.
      %f:6 = scf.for %j = %c0 to %G step %c1
          iter_args(%base = %c0, %g = %c0, %local = %c0, %mg = %c0, %ng = %c0, %kg = %c0)
          -> (i32, i32, i32, i32, i32, i32) : i32 {
        %row = arith.muli %j, %c3 : i32
        %pm = tile.addptr %sizes, %row : !tile.ptr<i32>, i32
        %m = tile.load %pm : !tile.ptr<i32> -> i32
        %col_n = arith.addi %row, %c1 : i32
        %pn = tile.addptr %sizes, %col_n : !tile.ptr<i32>, i32
        %n = tile.load %pn : !tile.ptr<i32> -> i32
        %col_k = arith.addi %row, %c2 : i32
        %pk = tile.addptr %sizes, %col_k : !tile.ptr<i32>, i32
        %k = tile.load %pk : !tile.ptr<i32> -> i32
        %tm = arith.ceildivsi %m, %cBM : i32
        %tn = arith.ceildivsi %n, %cBN : i32
        %tg = arith.muli %tm, %tn : i32
        %next = arith.addi %base, %tg : i32
        %ge = arith.cmpi sge, %tile, %base : i32
        %lt = arith.cmpi slt, %tile, %next : i32
        %hit = arith.andi %ge, %lt : i1
        %in = arith.subi %tile, %base : i32
        %g2 = arith.select %hit, %j, %g : i32
        %l2 = arith.select %hit, %in, %local : i32
        %m2 = arith.select %hit, %m, %mg : i32
        %n2 = arith.select %hit, %n, %ng : i32
        %k2 = arith.select %hit, %k, %kg : i32
        scf.yield %next, %g2, %l2, %m2, %n2, %k2 : i32, i32, i32, i32, i32, i32
      }
      %tiles_m = arith.ceildivsi %f#3, %cBM : i32
      %pm = arith.remsi %f#2, %tiles_m : i32
      %pn = arith.divsi %f#2, %tiles_m : i32
      %om = arith.muli %pm, %cBM : i32
      %on = arith.muli %pn, %cBN : i32
      %k_tiles = arith.ceildivsi %f#5, %cBK : i32
      %ad = tile.desc_index %a_descs[%f#1] : !tile.descs<tensor<128x64xf16>> -> !tile.desc<tensor<128x64xf16>>
      %bd = tile.desc_index %b_descs[%f#1] : !tile.descs<tensor<256x64xf16>> -> !tile.desc<tensor<256x64xf16>>
      %cd = tile.desc_index %c_descs[%f#1] : !tile.descs<tensor<128x256xf16>> -> !tile.desc<tensor<128x256xf16>>
      %zero = arith.constant dense<0.0> : tensor<128x256xf32>
      %r:2 = scf.for %kk = %c0 to %k_tiles step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x256xf32>, i32) : i32 {
        %a = tile.desc_load %ad[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
        %b = tile.desc_load %bd[%on, %ok] : !tile.desc<tensor<256x64xf16>> -> tensor<256x64xf16>
        %bt = tile.trans %b [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
        %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
        %ok2 = arith.addi %ok, %cBK : i32
        scf.yield %d, %ok2 : tensor<128x256xf32>, i32
      }
      %c = arith.truncf %r#0 : tensor<128x256xf32> to tensor<128x256xf16>
      tile.desc_store %cd[%om, %on], %c : !tile.desc<tensor<128x256xf16>>
    }
    func.return
  }
}
