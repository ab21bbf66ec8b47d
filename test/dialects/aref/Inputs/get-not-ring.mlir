// get: the first operand is a ring.
func.func @f(%k: i32, %v: tensor<64xf32>) {
  %x = aref.get %v[%k] : tensor<64xf32>
  func.return
}
