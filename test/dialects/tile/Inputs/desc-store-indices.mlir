// desc_store: one index per block dim.
func.func @f(%d: !tile.desc<tensor<2x64x32xf16>>, %i: i32, %v: tensor<2x64x32xf16>) {
  tile.desc_store %d[%i, %i], %v : !tile.desc<tensor<2x64x32xf16>>
  func.return
}
