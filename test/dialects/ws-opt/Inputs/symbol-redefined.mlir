// An elementwise kernel with no loop: nothing to warp-specialize.
func.func @scale(%x_desc: !tile.desc<tensor<64x64xf32>>, %y_desc: !tile.desc<tensor<64x64xf32>>, %s: f32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %p = tile.program_id 0 : i32
  %o = arith.muli %p, %c64 : i32
  %x = tile.desc_load %x_desc[%o, %c0] : !tile.desc<tensor<64x64xf32>> -> tensor<64x64xf32>
  %sv = tile.splat %s : f32 -> tensor<64x64xf32>
  %y = arith.mulf %x, %sv : tensor<64x64xf32>
  tile.desc_store %y_desc[%o, %c0], %y : !tile.desc<tensor<64x64xf32>>
  func.return
}
func.func @scale(%x_desc: !tile.desc<tensor<64x64xf32>>, %y_desc: !tile.desc<tensor<64x64xf32>>, %s: f32)
