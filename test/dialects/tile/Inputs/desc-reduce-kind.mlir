// tile.desc_store with a reduction kind it does not have (add, min, max).
func.func @f(%d: !tile.desc<tensor<64x64xf32>>, %i: i32, %v: tensor<64x64xf32>) {
  tile.desc_store mul %d[%i, %i], %v : !tile.desc<tensor<64x64xf32>>
  func.return
}
