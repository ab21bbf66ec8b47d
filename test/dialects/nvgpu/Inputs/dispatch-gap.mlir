// dispatch: branches cover the warps in order
func.func @f() {
  nvgpu.wg.dispatch threads 256 {
    nvgpu.wg.branch warps 4 to 8 "consumer" {
    }
  }
  func.return
}
