// expand_dims: the size-1 dim goes at `axis`.
func.func @f(%x: tensor<4xf32>) {
  %e = tile.expand_dims %x, 0 : tensor<4xf32> -> tensor<4x1xf32>
  func.return
}
