// addi (custom form): an operand used at a type other than its own.
func.func @f(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  %s = arith.addi %a, %b : tensor<4xi32>
  func.return
}
