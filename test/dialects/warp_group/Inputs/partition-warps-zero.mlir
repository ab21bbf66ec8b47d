// partition: at least one warp group.
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 producer warps 0 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}
