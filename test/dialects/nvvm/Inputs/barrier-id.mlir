// barrier: ids 0..15
func.func @f() {
  nvvm.barrier 16
  func.return
}
