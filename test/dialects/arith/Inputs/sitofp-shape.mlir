// sitofp: operand and result have one shape.
func.func @f(%a: tensor<4xi32>) {
  %f = arith.sitofp %a : tensor<4xi32> to tensor<8xf32>
  func.return
}
