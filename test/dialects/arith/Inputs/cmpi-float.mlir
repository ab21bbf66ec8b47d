// cmpi compares integers.
func.func @f(%a: tensor<4xf32>) {
  %m = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return
}
