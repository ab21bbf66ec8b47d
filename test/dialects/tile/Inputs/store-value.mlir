// store: the value holds the pointee type.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %v: tensor<64xf32>) {
  "tile.store"(%p, %v) : (tensor<64x!tile.ptr<f16>>, tensor<64xf32>) -> ()
  func.return
}
