// arrive: the scope is per_warp or once
func.func @f(%s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  nvgpu.mbarrier.arrive %b[%s] all : !nvgpu.mbarriers<2>
  func.return
}
