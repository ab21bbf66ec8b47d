// A view of a TMA-loaded tile leaves an scf.if (%sel) and the dot reads it after the
// if: the slot is released after the dot, not after the if. Grid: 1; args: A [128, 64*K] f16, O [128, 128] f32, K.
func.func @carry(%a_desc: !tile.desc<tensor<128x64xf16>>, %o_desc: !tile.desc<tensor<128x128xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %a1 = arith.constant dense<1.0> : tensor<128x64xf16>
  %r:3 = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %z, %ok = %c0, %prev = %a1) -> (tensor<128x128xf32>, i32, tensor<128x64xf16>) : i32 {
    %a = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %at = tile.trans %a [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %flag = arith.cmpi sgt, %k, %c0 : i32
    %sel = scf.if %flag -> (tensor<64x128xf16>) {
      scf.yield %at : tensor<64x128xf16>
    } else {
      %zt = arith.constant dense<0.0> : tensor<64x128xf16>
      scf.yield %zt : tensor<64x128xf16>
    }
    %d = tile.dot %prev, %sel, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2, %prev : tensor<128x128xf32>, i32, tensor<128x64xf16>
  }
  tile.desc_store %o_desc[%c0, %c0], %r#0 : !tile.desc<tensor<128x128xf32>>
  func.return
}
