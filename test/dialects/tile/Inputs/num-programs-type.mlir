// num_programs gives an i32.
func.func @f() {
  %n = tile.num_programs 0 : i64
  func.return
}
