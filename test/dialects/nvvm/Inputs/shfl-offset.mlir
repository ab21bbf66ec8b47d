// shfl_sync: lane offset in [0, 31]
func.func @f(%x: f32) {
  %y = nvvm.shfl_sync down %x, 32 : f32
  func.return
}
