// sitofp converts integers.
func.func @f(%a: tensor<4xf32>) {
  %f = arith.sitofp %a : tensor<4xf32> to tensor<4xf32>
  func.return
}
