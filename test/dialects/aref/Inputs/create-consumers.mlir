// create: at least one consumer.
func.func @f() {
  %r = aref.create consumers = 0 : !aref.ring<tensor<64xf32>, depth = 2>
  func.return
}
