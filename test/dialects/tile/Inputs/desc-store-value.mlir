// desc_store: the value is the descriptor's block.
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i32, %v: tensor<128x64xf32>) {
  "tile.desc_store"(%d, %i, %i, %v) : (!tile.desc<tensor<128x64xf16>>, i32, i32, tensor<128x64xf32>) -> ()
  func.return
}
