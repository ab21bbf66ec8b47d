// desc_load: the result is the descriptor's block.
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i32) {
  %a = tile.desc_load %d[%i, %i] : !tile.desc<tensor<128x64xf16>> -> tensor<64x64xf16>
  func.return
}
