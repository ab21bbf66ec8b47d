// cmpi: predicates are 0..9.
func.func @f(%a: tensor<4xi32>) {
  %m = "arith.cmpi"(%a, %a) <{predicate = 12 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  func.return
}
