// desc_load: indices are i32.
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i64) {
  %a = "tile.desc_load"(%d, %i, %i) : (!tile.desc<tensor<128x64xf16>>, i64, i64) -> tensor<128x64xf16>
  func.return
}
