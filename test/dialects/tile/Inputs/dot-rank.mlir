// dot: operands are 2-D.
func.func @f(%a: tensor<2x64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  %d = tile.dot %a, %b, %c : tensor<2x64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  func.return
}
