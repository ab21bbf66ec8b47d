// init: a barrier expects at least one arrival
func.func @f(%s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  nvgpu.mbarrier.init %b[%s] count 0 : !nvgpu.mbarriers<2>
  func.return
}
