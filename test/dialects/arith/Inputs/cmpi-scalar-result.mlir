// cmpi: tensor operands give a tensor of i1, not one i1.
func.func @f(%a: tensor<4xi32>) {
  %m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> i1
  func.return
}
