// reduce: kinds are sum, max and min.
func.func @f(%x: tensor<64x32xf32>) {
  %r = tile.reduce prod %x, 1 : tensor<64x32xf32> -> tensor<64xf32>
  func.return
}
