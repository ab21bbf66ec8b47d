// consumed: the ring position is an integer.
func.func @f(%k: tensor<4xi32>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  "aref.consumed"(%r, %k) : (!aref.ring<tensor<64xf32>, depth = 2>, tensor<4xi32>) -> ()
  func.return
}
