// read_sreg: known special registers only
func.func @f() {
  %t = nvvm.read_sreg clock : i32
  func.return
}
