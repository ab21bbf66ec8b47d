// A missing type after the colon.
func.func @f(%n: i32) {
  %x = arith.addi %n, %n :
  func.return
}
