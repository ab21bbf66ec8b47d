// Wrong expectations, for verify-diagnostics.mlir: each part has one mismatch or more.
// The first expects the wrong number; the second a warning that never comes (and no
// error); the third nothing (an unexpected error); the fourth the wrong severity.
func.func @wrong_text() {
  // expected-error@+1 {{axis must be 0, 1 or 2, got 4}}
  %p = tile.program_id 3 : i32
  func.return
}
// -----
func.func @missing() {
  %p = tile.program_id 0 : i32 // expected-warning {{never comes}}
  func.return
}
// -----
func.func @unexpected() {
  %n = tile.num_programs 1 : i32
  %p = tile.num_programs 5 : i32
  func.return
}
// -----
func.func @severity() {
  // expected-remark@+1 {{wrong severity}}
  %p = tile.program_id 9 : i32
  func.return
}
