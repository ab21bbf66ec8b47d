// wgmma.wait_group: pending in [0, 7]
func.func @f() {
  nvgpu.wgmma.wait_group {pending = 9}
  func.return
}
