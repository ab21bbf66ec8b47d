func.func @rings(%d: !tile.desc<tensor<64x64xf16>>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = aref.create consumers = 2 : !aref.ring<tensor<64x64xf16>, depth = 2>
  warp_group.region {
    warp_group.partition 0 producer warps 4 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %t = tile.desc_load %d[%k, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
        aref.put %r[%k], %t : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
    warp_group.partition 1 consumer warps 4 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %t = aref.get %r[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
        aref.consumed %r[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
  }
  func.return
}
