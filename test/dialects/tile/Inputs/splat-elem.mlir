// splat: the element type is the scalar's type.
func.func @f(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<4xi32>
  func.return
}
