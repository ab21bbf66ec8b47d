// Columns past N read as zero (a boundary mask): the input of the ws-version-masks example
// in docs/passes.md. X and Y are MxN f32; grid (cdiv(M, 64), cdiv(N, 64)).
// docs: ws-version-masks
func.func @masked_tile(%x_desc: !tile.desc<tensor<64x64xf32>>, %y_desc: !tile.desc<tensor<64x64xf32>>, %N: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c64 : i32
  %on = arith.muli %pn, %c64 : i32
  %x = tile.desc_load %x_desc[%om, %on] : !tile.desc<tensor<64x64xf32>> -> tensor<64x64xf32>
  %range = tile.make_range 0 to 64 : tensor<64xi32>
  %on_v = tile.splat %on : i32 -> tensor<64xi32>
  %cols = arith.addi %on_v, %range : tensor<64xi32>
  %N_v = tile.splat %N : i32 -> tensor<64xi32>
  %in = arith.cmpi slt, %cols, %N_v : tensor<64xi32>
  %in2 = tile.expand_dims %in, 0 : tensor<64xi1> -> tensor<1x64xi1>
  %inb = tile.broadcast %in2 : tensor<1x64xi1> -> tensor<64x64xi1>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %y = arith.select %inb, %x, %zero : tensor<64x64xi1>, tensor<64x64xf32>
  tile.desc_store %y_desc[%om, %on], %y : !tile.desc<tensor<64x64xf32>>
  func.return
}
