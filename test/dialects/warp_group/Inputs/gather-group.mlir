// gather: the group index lies in [0, groups).
func.func @f(%a: tensor<64x64xf16>) {
  %g = warp_group.gather %a, 2 of 2 along 0 : tensor<64x64xf16> -> tensor<128x64xf16>
  func.return
}
