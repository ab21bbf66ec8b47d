// partition: num_warps is a multiple of 4 (whole warp groups).
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 warps 6 {
      %x = arith.addi %n, %n : i32
    }
  }
  func.return
}
