// select: the condition holds i1.
func.func @f(%a: tensor<4xf32>, %c: tensor<4xi32>) {
  %s = arith.select %c, %a, %a : tensor<4xi32>, tensor<4xf32>
  func.return
}
