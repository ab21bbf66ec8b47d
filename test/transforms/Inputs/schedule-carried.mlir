// %d (stage 2) is read by %u of the next iteration (stage 0): two stages too late.
func.func @carried(%x_desc: !tile.desc<tensor<64x64xf16>>, %w_desc: !tile.desc<tensor<64x64xf16>>,
                   %o_desc: !tile.desc<tensor<64x64xf32>>, %K: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %z, %prev = %z) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
    %x = tile.desc_load %x_desc[%k, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 1 : i32}
    %w = tile.desc_load %w_desc[%k, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 1 : i32}
    %d = tile.dot %x, %w, %z : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32> {ws.stage = 2 : i32, ws.order = 2 : i32, ws.warp = 0 : i32}
    %u = arith.addf %prev, %acc {ws.stage = 0 : i32, ws.order = 3 : i32, ws.warp = 0 : i32} : tensor<64x64xf32>
    scf.yield %u, %d : tensor<64x64xf32>, tensor<64x64xf32>
  } {ws.schedule = {II = 4 : i32, L = 12 : i32, warps = 1 : i32, solver = "cpsat", vl_warp = 1 : i32}}
  tile.desc_store %o_desc[%c0, %c0], %r#0 : !tile.desc<tensor<64x64xf32>>
  func.return
}
