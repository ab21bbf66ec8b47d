// extf widens: f32 to f16 is a truncf.
func.func @f(%a: tensor<4xf32>) {
  %h = arith.extf %a : tensor<4xf32> to tensor<4xf16>
  func.return
}
