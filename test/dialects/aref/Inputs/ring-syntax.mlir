// !aref.ring: `depth = D` closes the parameter list.
func.func @f() {
  %r = aref.create : !aref.ring<tensor<64xf32>>
  func.return
}
