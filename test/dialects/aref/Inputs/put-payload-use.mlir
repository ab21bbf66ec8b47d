// put (custom form): a value of the wrong type.
func.func @f(%k: i32, %v: tensor<64xf16>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  aref.put %r[%k], %v : !aref.ring<tensor<64xf32>, depth = 2>
  func.return
}
