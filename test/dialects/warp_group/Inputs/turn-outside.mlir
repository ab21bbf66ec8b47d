// turn_wait: turns are taken by the groups of a team, inside partitions
func.func @f() {
  warp_group.turn_wait 0 of 2
  func.return
}
