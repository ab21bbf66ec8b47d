// addptr: offset tile shaped like the pointer tile.
func.func @f(%p: tensor<64x!tile.ptr<f16>>, %o: tensor<32xi32>) {
  %q = tile.addptr %p, %o : tensor<64x!tile.ptr<f16>>, tensor<32xi32>
  func.return
}
