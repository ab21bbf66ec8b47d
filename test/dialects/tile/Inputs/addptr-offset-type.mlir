// addptr: offsets are i32 or i64.
func.func @f(%p: !tile.ptr<f16>, %o: f32) {
  %q = tile.addptr %p, %o : !tile.ptr<f16>, f32
  func.return
}
