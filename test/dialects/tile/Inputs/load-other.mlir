// load: `other` has the result type.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %m: tensor<64xi1>, %o: tensor<64xf32>) {
  %v = "tile.load"(%p, %m, %o) : (tensor<64x!tile.ptr<f16>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf16>
  func.return
}
