// setmaxnreg: inc or dec
func.func @f() {
  nvgpu.setmaxnreg up 232
  func.return
}
