// turn_wait: the group index lies in [0, groups)
func.func @f() {
  warp_group.region {
    warp_group.partition 0 warps 4 {
      warp_group.turn_wait 3 of 2
    }
  }
  func.return
}
