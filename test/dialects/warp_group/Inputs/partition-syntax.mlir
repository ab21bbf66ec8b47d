// partition: `warps N` is required.
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 producer 4 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}
