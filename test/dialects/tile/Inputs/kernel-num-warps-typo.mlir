// A copy kernel whose warp count is written without the tile. prefix.
func.func @copy(%x_desc: !tile.desc<tensor<64x64xf16>>, %y_desc: !tile.desc<tensor<64x64xf16>>, %n: i32)
    attributes {tile.kernel, num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %o = arith.muli %i, %c64 : i32
    %x = tile.desc_load %x_desc[%o, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    tile.desc_store %y_desc[%o, %c0], %x : !tile.desc<tensor<64x64xf16>>
  }
  func.return
}
