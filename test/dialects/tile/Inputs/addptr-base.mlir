// addptr: the base is a pointer.
func.func @f(%p: tensor<64xi32>, %o: tensor<64xi32>) {
  %q = tile.addptr %p, %o : tensor<64xi32>, tensor<64xi32>
  func.return
}
