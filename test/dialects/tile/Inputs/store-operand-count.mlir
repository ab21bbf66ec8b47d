// store: ptrs, value [, mask], at least two operands.
func.func @f(%p: tensor<4x!tile.ptr<f16>>) {
  tile.store %p : tensor<4x!tile.ptr<f16>>
  func.return
}
