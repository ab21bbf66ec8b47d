// desc_load: one index per block dim (a 2-D block: a leading index more at most).
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %i: i32) {
  %a = tile.desc_load %d[%i, %i, %i, %i] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
  func.return
}
