// make_range: start must be >= 0.
func.func @f() {
  %r = "tile.make_range"() <{start = -4 : i32, end = 4 : i32}> : () -> tensor<8xi32>
  func.return
}
