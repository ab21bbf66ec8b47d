// broadcast keeps the element type.
func.func @f(%x: tensor<4x1xf32>) {
  %b = tile.broadcast %x : tensor<4x1xf32> -> tensor<4x8xf16>
  func.return
}
