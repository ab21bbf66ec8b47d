// fptosi gives integers.
func.func @f(%a: tensor<4xf32>) {
  %f = arith.fptosi %a : tensor<4xf32> to tensor<4xf16>
  func.return
}
