// select: both values have the result type.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf16>, %c: tensor<4xi1>) {
  %s = "arith.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  func.return
}
