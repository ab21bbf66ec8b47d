// A type of an unknown dialect.
func.func @f(%p: !tile.pointer<f16>) {
  func.return
}
