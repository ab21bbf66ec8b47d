// A TMA tile of 1 MiB: no aref slot for it fits in shared memory.
func.func @k(%a_desc: !tile.desc<tensor<1024x512xf16>>, %o_desc: !tile.desc<tensor<1024x1024xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.0> : tensor<1024x1024xf32>
  %r:2 = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %z, %ok = %c0) -> (tensor<1024x1024xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<1024x512xf16>> -> tensor<1024x512xf16>
    %at = tile.trans %a [1, 0] : tensor<1024x512xf16> -> tensor<512x1024xf16>
    %d = tile.dot %a, %at, %acc : tensor<1024x512xf16>, tensor<512x1024xf16> -> tensor<1024x1024xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<1024x1024xf32>, i32
  }
  tile.desc_store %o_desc[%c0, %c0], %r#0 : !tile.desc<tensor<1024x1024xf32>>
  func.return
}
