// dot: the accumulator is MxN.
func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x32xf32>) {
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
  func.return
}
