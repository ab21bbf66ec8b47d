// trans: the order is written in brackets.
func.func @f(%x: tensor<4x8xf32>) {
  %t = tile.trans %x 1, 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return
}
