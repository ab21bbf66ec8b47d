// Two groups take turns; group 0 passes each turn twice.
func.func @turns(%n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  warp_group.region {
    warp_group.partition 1 consumer0 warps 4 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        warp_group.turn_wait 0 of 2
        warp_group.turn_pass 0 of 2
        warp_group.turn_pass 0 of 2
      }
      warp_group.turn_wait 0 of 2
    }
    warp_group.partition 2 consumer1 warps 4 {
      warp_group.turn_pass 1 of 2
      scf.for %k = %c0 to %n step %c1 : i32 {
        warp_group.turn_wait 1 of 2
        warp_group.turn_pass 1 of 2
      }
    }
  }
  func.return
}
