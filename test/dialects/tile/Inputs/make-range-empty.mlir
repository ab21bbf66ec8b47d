// make_range: end must be above start.
func.func @f() {
  %r = "tile.make_range"() <{start = 10 : i32, end = 5 : i32}> : () -> tensor<5xi32>
  func.return
}
