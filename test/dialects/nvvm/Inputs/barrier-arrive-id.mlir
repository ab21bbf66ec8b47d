// barrier_arrive: a named barrier (id 0 is the CTA's, waited on by all threads)
func.func @f() {
  nvvm.barrier_arrive 0 threads 256
  func.return
}
