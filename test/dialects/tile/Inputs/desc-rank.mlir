// !tile.desc: the block is 2-D or 3-D.
func.func @f(%d: !tile.desc<tensor<64xf16>>) {

  func.return
}
