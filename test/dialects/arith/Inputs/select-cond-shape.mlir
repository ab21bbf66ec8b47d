// select: the condition is i1 or shaped like the values.
func.func @f(%a: tensor<4xf32>, %c: tensor<8xi1>) {
  %s = arith.select %c, %a, %a : tensor<8xi1>, tensor<4xf32>
  func.return
}
