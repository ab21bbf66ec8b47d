// addf: operands and result share one type.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  %s = "arith.addf"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  func.return
}
