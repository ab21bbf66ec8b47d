// dot: inputs are f16, bf16 or fp8 (tensor cores), not f32.
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) {
  %d = tile.dot %a, %b, %c : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  func.return
}
