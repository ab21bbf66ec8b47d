// barrier: whole warps
func.func @f() {
  nvvm.barrier 1 threads 100
  func.return
}
