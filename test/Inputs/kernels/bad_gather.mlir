// Invalid for the Hopper lowering: group 0 of a cooperative team gathers a tile but
// does not store it with tile.desc_store (the only use of warp_group.gather lowered).
func.func @bad_gather(%c_desc: !tile.desc<tensor<128x64xf32>>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  warp_group.region {
    warp_group.partition 0 consumer0 warps 4 {
      %x = arith.constant dense<1.0> : tensor<64x64xf32>
      %all = warp_group.gather %x, 0 of 2 along 0 : tensor<64x64xf32> -> tensor<128x64xf32>
    }
    warp_group.partition 1 consumer1 warps 4 {
      %y = arith.constant dense<2.0> : tensor<64x64xf32>
      %all_1 = warp_group.gather %y, 1 of 2 along 0 : tensor<64x64xf32> -> tensor<128x64xf32>
    }
  }
  func.return
}
