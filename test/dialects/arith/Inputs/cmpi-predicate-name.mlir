// cmpi: an unknown predicate name.
func.func @f(%a: tensor<4xi32>) {
  %m = arith.cmpi foo, %a, %a : tensor<4xi32>
  func.return
}
