// try_wait.parity: slot and parity are i32 (generic form)
func.func @f(%s: i32, %p: i64) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  "nvgpu.mbarrier.try_wait.parity"(%b, %s, %p) : (!nvgpu.mbarriers<2>, i32, i64) -> ()
  func.return
}
