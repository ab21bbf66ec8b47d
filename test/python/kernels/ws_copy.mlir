// Hand-written warp-specialized kernel: a producer partition loads row blocks of X
// through TMA and puts them in a ring; a consumer doubles them and stores to Y.
builtin.module {
  func.func @ws_copy(%x: !tile.desc<tensor<16x32xf32>>, %y: !tile.desc<tensor<16x32xf32>>, %n: i32)
      attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %ring = aref.create : !aref.ring<tensor<16x32xf32>, depth = 2>
    warp_group.region {
      warp_group.partition 0 producer warps 4 regs 40 {
        scf.for %k = %c0 to %n step %c1 : i32 {
          %row = arith.muli %k, %c16 : i32
          %t = tile.desc_load %x[%row, %c0] : !tile.desc<tensor<16x32xf32>> -> tensor<16x32xf32>
          aref.put %ring[%k], %t : !aref.ring<tensor<16x32xf32>, depth = 2>
        }
      }
      warp_group.partition 1 consumer warps 4 regs 232 {
        scf.for %k = %c0 to %n step %c1 : i32 {
          %t = aref.get %ring[%k] : !aref.ring<tensor<16x32xf32>, depth = 2>
          %d = arith.addf %t, %t : tensor<16x32xf32>
          aref.consumed %ring[%k] : !aref.ring<tensor<16x32xf32>, depth = 2>
          %row = arith.muli %k, %c16 : i32
          tile.desc_store %y[%row, %c0], %d : !tile.desc<tensor<16x32xf32>>
        }
      }
    }
    func.return
  }
}
