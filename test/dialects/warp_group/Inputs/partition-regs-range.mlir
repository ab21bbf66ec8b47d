// partition: setmaxnreg budgets lie in [24, 256].
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 warps 4 regs 300 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}
