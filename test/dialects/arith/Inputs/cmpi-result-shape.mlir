// cmpi: the result is i1 shaped like the operands.
func.func @f(%a: tensor<4xi32>) {
  %m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<8xi1>
  func.return
}
