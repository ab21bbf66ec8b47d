// ws-partition's tags on a small GEMM-like kernel; the RUN lines of ws-distribute.mlir break them.
builtin.module {
  func.func @k(%a_desc: !tile.desc<tensor<128x64xf16>>, %o_desc: !tile.desc<tensor<128x128xf32>>, %K: i32) attributes {tile.kernel, tile.num_warps = 8 : i32, ws.partitioned = "producer, consumer"} {
    %c0 = arith.constant {ws.partition = array<i32: 0, 1>, ws.role = "iter"} 0 : i32
    %c1 = arith.constant {ws.partition = array<i32: 0, 1>, ws.role = "iter"} 1 : i32
    %c64 = arith.constant {ws.partition = array<i32: 0>, ws.role = "iter"} 64 : i32
    %z = arith.constant {ws.partition = array<i32: 1>, ws.role = "tile"} dense<0.000000e+00> : tensor<128x128xf32>
    %r, %r_1 = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %z, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
      %a = tile.desc_load %a_desc[%c0, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.partition = array<i32: 0>, ws.role = "iter"}
      %at = tile.trans %a [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16> {ws.partition = array<i32: 1>, ws.role = "tile"}
      %d = tile.dot %a, %at, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32> {ws.partition = array<i32: 1>, ws.role = "tile"}
      %ok2 = arith.addi %ok, %c64 {ws.partition = array<i32: 0>, ws.role = "iter"} : i32
      scf.yield %d, %ok2 : tensor<128x128xf32>, i32
    } {ws.partition = array<i32: 0, 1>, ws.role = "tile", ws.carried = [array<i32: 1>, array<i32: 0>]}
    tile.desc_store %o_desc[%c0, %c0], %r : !tile.desc<tensor<128x128xf32>> {ws.partition = array<i32: 1>, ws.role = "tile"}
    func.return
  }
}
