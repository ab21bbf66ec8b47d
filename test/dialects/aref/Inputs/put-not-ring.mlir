// put: the first operand is a ring.
func.func @f(%k: i32, %v: tensor<64xf32>) {
  aref.put %v[%k], %v : tensor<64xf32>
  func.return
}
