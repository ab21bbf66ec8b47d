// A valid kernel for the option tests.
func.func @k(%n: i32) attributes {tile.kernel} {
  %p = tile.program_id 0 : i32
  %x = arith.addi %p, %n : i32
  func.return
}
