// !tile.desc: no i1 blocks.
func.func @f(%d: !tile.desc<tensor<64x64xi1>>) {

  func.return
}
