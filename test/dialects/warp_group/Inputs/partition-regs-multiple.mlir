// partition: setmaxnreg budgets are multiples of 8.
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 warps 4 regs 100 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}
