// partition: only directly inside warp_group.region.
func.func @f(%n: i32) {
  warp_group.partition 0 warps 4 {
      %x = arith.addi %n, %n : i32
    }
  func.return
}
