// tile.kernel is a unit attribute.
func.func @k() attributes {tile.kernel = 1 : i32, tile.num_warps = 4 : i32} {
  func.return
}
