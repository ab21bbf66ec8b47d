// Already warp-specialized (run with ws-lower-aref,ws-lower-warp-groups): C = (2 A) @ B^T
// over T K-tiles of 64, one 64x64 tile of C. The producer computes 2 * A from a tile it
// TMA-loads for itself (not through an aref) and puts it (nvgpu.smem.store into the
// swizzled slot); B goes through a TMA aref. The consumer's wgmma reads both slots.
// A: [M <= 64, K], B: [N <= 64, K] f16; C: [M, N] f32 through a TMA store. Grid: 1.
func.func @computed_dot(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
                        %c_desc: !tile.desc<tensor<64x64xf32>>, %T: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = aref.create : !aref.ring<tensor<64x64xf16>, depth = 2>
  %rb = aref.create : !aref.ring<tensor<64x64xf16>, depth = 2>
  warp_group.region {
    warp_group.partition 0 producer warps 4 regs 40 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %two = arith.constant dense<2.0> : tensor<64x64xf16>
      scf.for %k = %c0 to %T step %c1 : i32 {
        %o = arith.muli %k, %c64 : i32
        %x = tile.desc_load %a_desc[%c0, %o] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
        %y = arith.mulf %x, %two : tensor<64x64xf16>
        aref.put %r[%k], %y : !aref.ring<tensor<64x64xf16>, depth = 2>
        %b = tile.desc_load %b_desc[%c0, %o] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
        aref.put %rb[%k], %b : !aref.ring<tensor<64x64xf16>, depth = 2>
      }
    }
    warp_group.partition 1 consumer warps 4 regs 232 {
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant 1 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32>
      %acc = scf.for %k_1 = %c0_1 to %T step %c1_1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
        %y_1 = aref.get %r[%k_1] : !aref.ring<tensor<64x64xf16>, depth = 2>
        %b_1 = aref.get %rb[%k_1] : !aref.ring<tensor<64x64xf16>, depth = 2>
        %bt = tile.trans %b_1 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
        %d = tile.dot %y_1, %bt, %acc0 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
        aref.consumed %r[%k_1] : !aref.ring<tensor<64x64xf16>, depth = 2>
        aref.consumed %rb[%k_1] : !aref.ring<tensor<64x64xf16>, depth = 2>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.desc_store %c_desc[%c0_1, %c0_1], %acc : !tile.desc<tensor<64x64xf32>>
    }
  }
  func.return
}
