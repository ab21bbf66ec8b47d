// trans: result dim i is operand dim order[i].
func.func @f(%x: tensor<4x8xf32>) {
  %t = tile.trans %x [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}
