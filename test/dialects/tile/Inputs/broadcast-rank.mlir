// broadcast keeps the rank.
func.func @f(%x: tensor<4x1xf32>) {
  %b = tile.broadcast %x : tensor<4x1xf32> -> tensor<2x4x8xf32>
  func.return
}
