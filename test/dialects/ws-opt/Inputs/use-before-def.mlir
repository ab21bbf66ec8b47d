// %b is used before it is defined (xDSL 0.74 alone accepts this).
func.func @f() {
  %a = arith.addi %b, %b : i32
  %b = arith.constant 1 : i32
  func.return
}
