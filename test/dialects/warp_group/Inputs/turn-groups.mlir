// turn_pass: at least two groups take turns
func.func @f() {
  warp_group.region {
    warp_group.partition 0 warps 4 {
      warp_group.turn_pass 0 of 1
    }
  }
  func.return
}
