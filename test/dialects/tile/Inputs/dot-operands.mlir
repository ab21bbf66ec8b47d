// dot (custom form): three operands.
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  %d = tile.dot %a, %b : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  func.return
}
