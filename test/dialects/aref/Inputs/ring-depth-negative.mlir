// !aref.ring: the depth is a non-negative integer literal.
func.func @f() {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = -1>
  func.return
}
