// Two partitions claim group 0's turns.
func.func @twice() attributes {tile.kernel, tile.num_warps = 8 : i32} {
  warp_group.region {
    warp_group.partition 0 consumer0 warps 4 {
      warp_group.turn_wait 0 of 2
    }
    warp_group.partition 1 consumer1 warps 4 {
      warp_group.turn_pass 0 of 2
    }
  }
  func.return
}
