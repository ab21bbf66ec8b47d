// broadcast stretches only size-1 dims.
func.func @f(%x: tensor<4x2xf32>) {
  %b = tile.broadcast %x : tensor<4x2xf32> -> tensor<4x8xf32>
  func.return
}
