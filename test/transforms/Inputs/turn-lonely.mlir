// A turn only group 0 of 2 takes: nobody would ever pass it back.
func.func @lonely() attributes {tile.kernel, tile.num_warps = 8 : i32} {
  warp_group.region {
    warp_group.partition 0 consumer0 warps 4 {
      warp_group.turn_wait 0 of 2
      warp_group.turn_pass 0 of 2
    }
    warp_group.partition 1 consumer1 warps 4 {
    }
  }
  func.return
}
