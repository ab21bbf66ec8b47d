// A function body without func.return.
func.func @f(%n: i32) {
  %x = arith.addi %n, %n : i32
}
