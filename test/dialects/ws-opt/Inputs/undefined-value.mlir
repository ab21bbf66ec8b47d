// %m is never defined.
func.func @f(%n: i32) {
  %x = arith.addi %n, %m : i32
  func.return
}
