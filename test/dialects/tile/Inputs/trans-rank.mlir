// trans: the order has one entry per dim.
func.func @f(%x: tensor<4x8xf32>) {
  %t = tile.trans %x [2, 0, 1] : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return
}
