// shfl_sync: 32-bit values
func.func @f(%x: f16) {
  %y = nvvm.shfl_sync bfly %x, 1 : f16
  func.return
}
