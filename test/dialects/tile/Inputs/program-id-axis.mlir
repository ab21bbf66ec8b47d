// program_id: the grid has 3 axes.
func.func @f() {
  %p = tile.program_id 3 : i32
  func.return
}
