// dot: a and b have one element type.
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) {
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  func.return
}
