// round_trip.mlir with a ws.order that contradicts a dependence (issue 12, S3): %e is ranked 3,
// before its operand's producer %s (6) in the same stage. Honoured, it deadlocked (warp group 0
// waited for %e16 before sending %s); now it is a located error.
func.func @round_trip(%x_desc: !tile.desc<tensor<128x64xf16>>, %w1_desc: !tile.desc<tensor<64x64xf16>>,
                      %w2_desc: !tile.desc<tensor<64x64xf16>>, %o_desc: !tile.desc<tensor<128x64xf32>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %om = arith.muli %pm, %c128 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %zs = arith.constant dense<0.0> : tensor<128x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %z, %ok = %c0) -> (tensor<128x64xf32>, i32) : i32 {
    %x = tile.desc_load %x_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16> {ws.stage = 0 : i32, ws.order = 0 : i32, ws.warp = 2 : i32}
    %w1 = tile.desc_load %w1_desc[%ok, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 1 : i32, ws.warp = 2 : i32}
    %w2 = tile.desc_load %w2_desc[%ok, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16> {ws.stage = 0 : i32, ws.order = 2 : i32, ws.warp = 2 : i32}
    %s = tile.dot %x, %w1, %zs : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32> {ws.stage = 0 : i32, ws.order = 6 : i32, ws.warp = 0 : i32}
    %e = math.exp2 %s {ws.stage = 0 : i32, ws.order = 3 : i32, ws.warp = 1 : i32} : tensor<128x64xf32>
    %e16 = arith.truncf %e {ws.stage = 1 : i32, ws.order = 4 : i32, ws.warp = 1 : i32} : tensor<128x64xf32> to tensor<128x64xf16>
    %acc2 = tile.dot %e16, %w2, %acc : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32> {ws.stage = 1 : i32, ws.order = 5 : i32, ws.warp = 0 : i32}
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %acc2, %ok2 : tensor<128x64xf32>, i32
  } {ws.schedule = {II = 8 : i32, L = 8 : i32, warps = 2 : i32, solver = "cpsat", vl_warp = 2 : i32}}
  tile.desc_store %o_desc[%om, %c0], %r#0 : !tile.desc<tensor<128x64xf32>>
  func.return
}
