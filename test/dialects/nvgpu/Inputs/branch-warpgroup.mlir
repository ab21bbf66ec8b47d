// branch: whole warp groups
func.func @f() {
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 2 "a" {
    }
    nvgpu.wg.branch warps 2 to 4 "b" {
    }
  }
  func.return
}
