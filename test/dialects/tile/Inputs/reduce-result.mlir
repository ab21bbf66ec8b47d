// reduce: the result drops the reduced axis.
func.func @f(%x: tensor<64x32xf32>) {
  %r = tile.reduce max %x, 0 : tensor<64x32xf32> -> tensor<64xf32>
  func.return
}
