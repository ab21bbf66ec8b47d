// Hand-written aref IR whose consumer loop steps by -1 (the producer's by 1).
func.func @computed_put(%a_desc: !tile.desc<tensor<64x64xf16>>, %c_desc: !tile.desc<tensor<64x64xf16>>, %T: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = aref.create : !aref.ring<tensor<64x64xf16>, depth = 2>
  warp_group.region {
    warp_group.partition 0 producer warps 4 regs 40 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %two = arith.constant dense<2.0> : tensor<64x64xf16>
      scf.for %k = %c0 to %T step %c1 : i32 {
        %o = arith.muli %k, %c64 : i32
        %x = tile.desc_load %a_desc[%o, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
        %y = arith.mulf %x, %two : tensor<64x64xf16>
        aref.put %r[%k], %y : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
    warp_group.partition 1 consumer warps 4 regs 232 {
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant -1 : i32
      %c64_1 = arith.constant 64 : i32
      scf.for %k_1 = %c0_1 to %T step %c1_1 : i32 {
        %o_1 = arith.muli %k_1, %c64_1 : i32
        %y_1 = aref.get %r[%k_1] : !aref.ring<tensor<64x64xf16>, depth = 2>
        tile.desc_store %c_desc[%o_1, %c0_1], %y_1 : !tile.desc<tensor<64x64xf16>>
        aref.consumed %r[%k_1] : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
  }
  func.return
}
