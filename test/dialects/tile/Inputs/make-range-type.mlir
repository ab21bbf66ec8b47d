// make_range: the result has end - start elements.
func.func @f() {
  %r = tile.make_range 0 to 64 : tensor<32xi32>
  func.return
}
