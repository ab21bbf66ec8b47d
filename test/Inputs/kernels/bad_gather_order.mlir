// Invalid for the Hopper lowering: the groups of a gathering team must be consecutive
// partitions, group 0 first (group 1 comes first here).
func.func @bad_gather_order(%c_desc: !tile.desc<tensor<128x64xf32>>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  warp_group.region {
    warp_group.partition 0 consumer1 warps 4 {
      %c0 = arith.constant 0 : i32
      %y = arith.constant dense<2.0> : tensor<64x64xf32>
      %all_1 = warp_group.gather %y, 1 of 2 along 0 : tensor<64x64xf32> -> tensor<128x64xf32>
    }
    warp_group.partition 1 consumer0 warps 4 {
      %c0_1 = arith.constant 0 : i32
      %x = arith.constant dense<1.0> : tensor<64x64xf32>
      %all = warp_group.gather %x, 0 of 2 along 0 : tensor<64x64xf32> -> tensor<128x64xf32>
      tile.desc_store %c_desc[%c0_1, %c0_1], %all : !tile.desc<tensor<128x64xf32>>
    }
  }
  func.return
}
