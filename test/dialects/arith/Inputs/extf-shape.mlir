// extf is elementwise: operand and result have one shape.
func.func @f(%a: tensor<4xf16>) {
  %f = arith.extf %a : tensor<4xf16> to tensor<8xf32>
  func.return
}
