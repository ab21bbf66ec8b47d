// A small GEMM-like kernel; the RUN lines put a value in place of NUM_WARPS.
func.func @k(%a_desc: !tile.desc<tensor<128x64xf16>>, %o_desc: !tile.desc<tensor<128x128xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = NUM_WARPS} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:2 = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %z, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %at = tile.trans %a [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %at, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x128xf32>, i32
  }
  tile.desc_store %o_desc[%c0, %c0], %r#0 : !tile.desc<tensor<128x128xf32>>
  func.return
}
