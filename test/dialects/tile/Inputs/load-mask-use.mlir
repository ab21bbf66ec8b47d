// load (custom form): the mask's type follows from the pointers'.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %m: tensor<32xi1>) {
  %v = tile.load %p, %m : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
  func.return
}
