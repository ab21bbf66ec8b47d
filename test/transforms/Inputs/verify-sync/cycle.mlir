// Partition 1 sends %x to partition 2 and gets %y back, but waits for %y before it sends
// %x: a wait cycle.
func.func @cycle(%d: !tile.desc<tensor<64x64xf16>>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = aref.create : !aref.ring<tensor<64x64xf16>, depth = 2>
  %x = aref.create : !aref.ring<tensor<64x64xf16>, depth = 2>
  %y = aref.create : !aref.ring<tensor<64x64xf16>, depth = 2>
  warp_group.region {
    warp_group.partition 0 producer warps 4 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %t = tile.desc_load %d[%k, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
        aref.put %a[%k], %t : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
    warp_group.partition 1 first warps 4 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %t = aref.get %a[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
        %u = aref.get %y[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
        aref.put %x[%k], %t : !aref.ring<tensor<64x64xf16>, depth = 2>
        aref.consumed %y[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
        aref.consumed %a[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
    warp_group.partition 2 second warps 4 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %t = aref.get %x[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
        aref.put %y[%k], %t : !aref.ring<tensor<64x64xf16>, depth = 2>
        aref.consumed %x[%k] : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
  }
  func.return
}
