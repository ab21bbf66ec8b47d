// tiles hold f16, bf16, f32, fp8, i1, i32, i64 or pointers, not i8.
func.func @f(%x: i8) {
  %t = tile.splat %x : i8 -> tensor<4xi8>
  func.return
}
