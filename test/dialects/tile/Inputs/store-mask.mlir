// store: the mask is shaped like the pointers.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %v: tensor<64xf16>, %m: tensor<64xi32>) {
  "tile.store"(%p, %v, %m) : (tensor<64x!tile.ptr<f16>>, tensor<64xf16>, tensor<64xi32>) -> ()
  func.return
}
