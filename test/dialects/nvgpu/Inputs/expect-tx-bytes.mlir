// arrive_expect_tx: the byte count is positive
func.func @f(%s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  nvgpu.mbarrier.arrive_expect_tx %b[%s] bytes 0 : !nvgpu.mbarriers<2>
  func.return
}
