// gather: the axis is one of the tile's dims.
func.func @f(%a: tensor<64x64xf16>) {
  %g = "warp_group.gather"(%a) <{axis = 2 : i32, group = 0 : i32, groups = 2 : i32}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
  func.return
}
