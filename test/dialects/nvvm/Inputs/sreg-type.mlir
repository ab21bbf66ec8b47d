// read_sreg: special registers are i32
func.func @f() {
  %t = nvvm.read_sreg tid.x : i64
  func.return
}
