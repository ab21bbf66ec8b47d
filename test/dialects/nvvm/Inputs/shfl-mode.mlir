// shfl_sync: bfly, down, up or idx
func.func @f(%x: f32) {
  %y = nvvm.shfl_sync xor %x, 1 : f32
  func.return
}
