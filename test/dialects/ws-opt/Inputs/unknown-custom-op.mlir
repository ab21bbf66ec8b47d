// An op of a known dialect that does not exist.
func.func @f(%n: i32) {
  %x = tile.frobnicate %n : i32
  func.return
}
