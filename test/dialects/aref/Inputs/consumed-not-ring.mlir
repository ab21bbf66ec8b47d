// consumed: the first operand is a ring.
func.func @f(%k: i32, %v: tensor<64xf32>) {
  "aref.consumed"(%v, %k) : (tensor<64xf32>, i32) -> ()
  func.return
}
