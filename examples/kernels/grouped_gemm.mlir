// Grouped GEMM in the form of torch._grouped_mm (bf16): A [sum M_g, K], B [G, N, K], int32 offs
// [G] (cumulative row ends), C [sum M_g, N] with C[rows of g] = A[rows of g] @ B[g]^T. One
// persistent launch over all groups' tiles (128x256x64, 8 consumer warps); the groups in turn, one load of the offsets each, a program's tiles of a group strided by the programs;
// M fastest in a group; A through one descriptor, B through a 3-D descriptor (group first), C by a TMA store where the tile lies in its group, else a masked store clipped at the group's end.
// Grid: any number of programs (one per SM). Form: groups/m/tma.
// Arguments: a, b, c (flat), c again (C's descriptor), offs, G, M = sum M_g (rows of A and C), N, K.
// Written by wsdialects/runtime/grouped_gemm_kernels.py.
builtin.module {
  func.func @grouped_gemm(%a_desc: !tile.desc<tensor<128x64xbf16>>, %b_desc: !tile.desc<tensor<256x64xbf16>>,
                          %c_ptr: !tile.ptr<bf16>, %c_desc: !tile.desc<tensor<128x256xbf16>>, %offs: !tile.ptr<i32>, %G: i32, %M: i32, %N: i32, %K: i32)
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
    // Group after group (one load of the offsets each): program p takes the tiles of group g
    // whose number in the numbering of all groups' tiles, base + l, is p modulo the programs.
    %walk:2 = scf.for %g = %c0 to %G step %c1 iter_args(%base = %c0, %row0 = %c0) -> (i32, i32) : i32 {
      %pe = tile.addptr %offs, %g : !tile.ptr<i32>, i32
      %rowend = tile.load %pe : !tile.ptr<i32> -> i32
      %mg = arith.subi %rowend, %row0 : i32
      %tiles_m = arith.ceildivsi %mg, %cBM : i32
      %tg = arith.muli %tiles_m, %tiles_n : i32
      %base_mod = arith.remsi %base, %nprog : i32
      %ahead = arith.addi %pid, %nprog : i32
      %shift = arith.subi %ahead, %base_mod : i32
      %first = arith.remsi %shift, %nprog : i32
      scf.for %local = %first to %tg step %nprog : i32 {
        %pm = arith.remsi %local, %tiles_m : i32
        %pn = arith.divsi %local, %tiles_m : i32
        %om_g = arith.muli %pm, %cBM : i32
        %om = arith.addi %row0, %om_g : i32
        %on = arith.muli %pn, %cBN : i32
        %zero = arith.constant dense<0.0> : tensor<128x256xf32>
        %r:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x256xf32>, i32) : i32 {
          %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
          %b = tile.desc_load %b_desc[%g, %on, %ok] : !tile.desc<tensor<256x64xbf16>> -> tensor<256x64xbf16>
          %bt = tile.trans %b [1, 0] : tensor<256x64xbf16> -> tensor<64x256xbf16>
          %d = tile.dot %a, %bt, %acc : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
          %ok2 = arith.addi %ok, %cBK : i32
          scf.yield %d, %ok2 : tensor<128x256xf32>, i32
        }
        %c = arith.truncf %r#0 : tensor<128x256xf32> to tensor<128x256xbf16>
        %row_end = arith.minsi %rowend, %M : i32
        %om_end = arith.addi %om, %cBM : i32
        %whole = arith.cmpi sle, %om_end, %row_end : i32
        scf.if %whole {
          tile.desc_store %c_desc[%om, %on], %c : !tile.desc<tensor<128x256xbf16>>
        } else {
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
          %base_p = tile.splat %c_ptr : !tile.ptr<bf16> -> tensor<128x256x!tile.ptr<bf16>>
          %ptrs = tile.addptr %base_p, %off : tensor<128x256x!tile.ptr<bf16>>, tensor<128x256xi32>
          %end_v = tile.splat %row_end : i32 -> tensor<128xi32>
          %Nc_v = tile.splat %N : i32 -> tensor<256xi32>
          %in_m = arith.cmpi slt, %rows, %end_v : tensor<128xi32>
          %in_n = arith.cmpi slt, %cols, %Nc_v : tensor<256xi32>
          %in_m2 = tile.expand_dims %in_m, 1 : tensor<128xi1> -> tensor<128x1xi1>
          %in_n2 = tile.expand_dims %in_n, 0 : tensor<256xi1> -> tensor<1x256xi1>
          %mmb = tile.broadcast %in_m2 : tensor<128x1xi1> -> tensor<128x256xi1>
          %mnb = tile.broadcast %in_n2 : tensor<1x256xi1> -> tensor<128x256xi1>
          %mask = arith.andi %mmb, %mnb : tensor<128x256xi1>
          tile.store %ptrs, %c, %mask : tensor<128x256x!tile.ptr<bf16>>
        }
      }
      %next = arith.addi %base, %tg : i32
      scf.yield %next, %rowend : i32, i32
    }
    func.return
  }
}
