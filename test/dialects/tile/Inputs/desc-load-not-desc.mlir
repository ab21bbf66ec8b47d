// desc_load: the first operand is a descriptor.
func.func @f(%p: !tile.ptr<f16>, %i: i32) {
  %a = tile.desc_load %p[%i, %i] : !tile.ptr<f16> -> tensor<128x64xf16>
  func.return
}
