// consumed: a slot is released once per get.
func.func @f(%k: i32, %x: tensor<64xf32>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  aref.put %r[%k], %x : !aref.ring<tensor<64xf32>, depth = 2>
  %a = aref.get %r[%k] : !aref.ring<tensor<64xf32>, depth = 2>
  aref.consumed %r[%k] : !aref.ring<tensor<64xf32>, depth = 2>
  aref.consumed %r[%k] : !aref.ring<tensor<64xf32>, depth = 2>
  func.return
}
