// splat: the operand is a scalar.
func.func @f(%x: tensor<4xf32>) {
  %t = tile.splat %x : tensor<4xf32> -> tensor<4x4xf32>
  func.return
}
