// trans: the order must be a permutation.
func.func @f(%x: tensor<4x8xf32>) {
  %t = tile.trans %x [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  func.return
}
