// get: one result per payload type, of that type.
func.func @f(%k: i32) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  %v = "aref.get"(%r, %k) : (!aref.ring<tensor<64xf32>, depth = 2>, i32) -> tensor<64xf16>
  func.return
}
