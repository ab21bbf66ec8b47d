// put: the values match the payload types (generic form).
func.func @f(%k: i32, %v: tensor<64xf16>) {
  %r = aref.create : !aref.ring<tensor<64xf32>, depth = 2>
  "aref.put"(%r, %k, %v) : (!aref.ring<tensor<64xf32>, depth = 2>, i32, tensor<64xf16>) -> ()
  func.return
}
