// cmpf: both operands have one type.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  %m = "arith.cmpf"(%a, %b) <{predicate = 4 : i64}> : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  func.return
}
