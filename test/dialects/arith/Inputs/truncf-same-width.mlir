// truncf from f16 to bf16 keeps the width: not a truncation.
func.func @f(%a: tensor<4xf16>) {
  %b = arith.truncf %a : tensor<4xf16> to tensor<4xbf16>
  func.return
}
