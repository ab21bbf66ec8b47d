// A value defined in one partition is not in scope in another: values cross
// partitions only through arefs (the verifier's check is in test/python).
func.func @f(%n: i32) {
  warp_group.region {
    warp_group.partition 0 warps 4 {
      %x = arith.addi %n, %n : i32
    }
    warp_group.partition 1 warps 4 {
      %y = arith.addi %x, %n : i32
    }
  }
  func.return
}
