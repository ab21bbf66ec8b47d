// make_range: the result holds i32.
func.func @f() {
  %r = "tile.make_range"() <{start = 0 : i32, end = 4 : i32}> : () -> tensor<4xi64>
  func.return
}
