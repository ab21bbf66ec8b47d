// expand_dims: axis out of range for a rank-1 tile.
func.func @f(%x: tensor<4xf32>) {
  %e = tile.expand_dims %x, 2 : tensor<4xf32> -> tensor<4x1xf32>
  func.return
}
