// C = A @ B^T on 64x64 tiles, A read Triton's classic way: a pointer tile
// `a + rows[:, None] * S + k[None, :]` advanced by 64 each iteration, masked at M and
// K with other = 0 (B and C through descriptors). Grid: (cdiv(M, 64), cdiv(N, 64)).
// docs: ws-tma-load
func.func @gemm(%a: !tile.ptr<f16>, %b_desc: !tile.desc<tensor<64x64xf16>>, %c_desc: !tile.desc<tensor<64x64xf32>>,
                %M: i32, %K: i32, %S: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c64 : i32
  %on = arith.muli %pn, %c64 : i32
  %range = tile.make_range 0 to 64 : tensor<64xi32>
  %om_v = tile.splat %om : i32 -> tensor<64xi32>
  %rows = arith.addi %om_v, %range : tensor<64xi32>
  %rows_e = tile.expand_dims %rows, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %S_v = tile.splat %S : i32 -> tensor<64x1xi32>
  %row_off = arith.muli %rows_e, %S_v : tensor<64x1xi32>
  %row_b = tile.broadcast %row_off : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols_e = tile.expand_dims %range, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cols_b = tile.broadcast %cols_e : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %row_b, %cols_b : tensor<64x64xi32>
  %base = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ptrs0 = tile.addptr %base, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %M_v = tile.splat %M : i32 -> tensor<64x1xi32>
  %row_ok = arith.cmpi slt, %rows_e, %M_v : tensor<64x1xi32>
  %row_okb = tile.broadcast %row_ok : tensor<64x1xi1> -> tensor<64x64xi1>
  %step = arith.constant dense<64> : tensor<64x64xi32>
  %a_zero = arith.constant dense<0.0> : tensor<64x64xf16>
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ptrs = %ptrs0)
      -> (tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>) : i32 {
    %ok = arith.muli %k, %c64 : i32
    %k_left = arith.subi %K, %ok : i32
    %k_left_v = tile.splat %k_left : i32 -> tensor<1x64xi32>
    %col_ok = arith.cmpi slt, %cols_e, %k_left_v : tensor<1x64xi32>
    %col_okb = tile.broadcast %col_ok : tensor<1x64xi1> -> tensor<64x64xi1>
    %mask = arith.andi %row_okb, %col_okb : tensor<64x64xi1>
    %av = tile.load %ptrs, %mask, %a_zero : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %av, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %next = tile.addptr %ptrs, %step : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    scf.yield %d, %next : tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>
  }
  tile.desc_store %c_desc[%om, %on], %r#0 : !tile.desc<tensor<64x64xf32>>
  func.return
}
