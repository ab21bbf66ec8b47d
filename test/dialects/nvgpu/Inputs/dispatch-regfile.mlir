// dispatch: register budgets fit the register file
func.func @f() {
  nvgpu.wg.dispatch threads 384 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
      nvgpu.setmaxnreg dec 40
    }
    nvgpu.wg.branch warps 4 to 12 "consumer" {
      nvgpu.setmaxnreg inc 240
    }
  }
  func.return
}
