// load: the result holds the pointee type.
func.func @f(%p: tensor<64x!tile.ptr<f16>>) {
  %v = tile.load %p : tensor<64x!tile.ptr<f16>> -> tensor<64xf32>
  func.return
}
