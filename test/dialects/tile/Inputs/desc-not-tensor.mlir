// !tile.desc: the parameter is a tensor type.
func.func @f(%d: !tile.desc<f16>) {

  func.return
}
