// gather: the result is the slice times the number of groups along the axis.
func.func @f(%a: tensor<64x64xf16>) {
  %g = "warp_group.gather"(%a) <{axis = 0 : i32, group = 0 : i32, groups = 2 : i32}> : (tensor<64x64xf16>) -> tensor<64x128xf16>
  func.return
}
