// load: ptrs [, mask [, other]], at most three operands.
func.func @f(%p: tensor<4x!tile.ptr<f16>>, %m: tensor<4xi1>, %v: tensor<4xf16>) {
  %x = tile.load %p, %m, %v, %v : tensor<4x!tile.ptr<f16>> -> tensor<4xf16>
  func.return
}
