// setmaxnreg: a multiple of 8 in [24, 256]
func.func @f() {
  nvgpu.setmaxnreg inc 230
  func.return
}
