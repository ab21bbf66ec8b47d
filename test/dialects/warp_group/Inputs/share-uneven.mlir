// share: the split axis divides evenly among the groups.
func.func @f(%a: tensor<96x64xf16>) {
  %s = warp_group.share %a, 0 of 4 along 1 : tensor<96x64xf16> -> tensor<96x16xf16>
  %t = "warp_group.share"(%a) <{axis = 0 : i32, group = 0 : i32, groups = 5 : i32}> : (tensor<96x64xf16>) -> tensor<19x64xf16>
  func.return
}
