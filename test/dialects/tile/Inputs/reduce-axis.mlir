// reduce: the axis is a dim of the operand.
func.func @f(%x: tensor<64x32xf32>) {
  %r = tile.reduce sum %x, 2 : tensor<64x32xf32> -> tensor<64xf32>
  func.return
}
