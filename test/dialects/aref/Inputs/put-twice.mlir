// put: a second put of the same position waits for the slot to be empty.
func.func @f(%k: i32, %x: tensor<64xf32>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  aref.put %r[%k], %x : !aref.ring<tensor<64xf32>, depth = 2>
  aref.put %r[%k], %x : !aref.ring<tensor<64xf32>, depth = 2>
  func.return
}
