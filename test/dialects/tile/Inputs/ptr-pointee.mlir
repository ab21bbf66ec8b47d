// !tile.ptr: i8 is not an element type.
func.func @f(%p: !tile.ptr<i8>) {

  func.return
}
