// !nvgpu.mbarriers: at least one barrier
func.func @f() {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<0>
  func.return
}
