// region: partition ids are unique.
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 warps 4 {
      %x = arith.addi %n, %n : i32
    }
    warp_group.partition 0 warps 8 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}
