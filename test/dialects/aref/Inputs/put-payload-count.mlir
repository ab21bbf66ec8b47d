// put: one value per payload type.
func.func @f(%k: i32, %v: tensor<64xf32>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, tensor<64xi32>, depth = 2>
  aref.put %r[%k], %v : !aref.ring<tensor<64xf32>, tensor<64xi32>, depth = 2>
  func.return
}
