// reduce: no reductions of pointer tiles.
func.func @f(%x: tensor<64x!tile.ptr<f16>>) {
  %r = "tile.reduce"(%x) <{axis = 0 : i32, kind = "sum"}> : (tensor<64x!tile.ptr<f16>>) -> !tile.ptr<f16>
  func.return
}
