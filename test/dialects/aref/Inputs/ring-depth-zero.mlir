// !aref.ring: a ring has at least one slot.
func.func @f() {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 0>
  func.return
}
