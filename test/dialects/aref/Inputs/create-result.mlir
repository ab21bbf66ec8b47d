// create gives a ring.
func.func @f() {
  %r = "aref.create"() : () -> tensor<64xf32>
  func.return
}
