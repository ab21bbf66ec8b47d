// C = exp2(scale * A @ B^T) on 128x128 tiles (f16 in, f32 accumulation and out, TMA store):
// an exponential of a whole accumulator tile, whose result is stored as it is computed, so
// that ws-exp2-split's polynomial can be compared element by element with the SFU's (or
// numpy's) exp2. Grid: (cdiv(M, 128), cdiv(N, 128)); arguments A [M, K], B [N, K], C [M, N],
// K, scale.
func.func @exp2_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                     %c_desc: !tile.desc<tensor<128x128xf32>>, %K: i32, %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c128 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x128xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%on, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x128xf32>, i32
  }
  %s = tile.splat %scale : f32 -> tensor<128x128xf32>
  %x = arith.mulf %r#0, %s : tensor<128x128xf32>
  %e = math.exp2 %x : tensor<128x128xf32>
  tile.desc_store %c_desc[%om, %on], %e : !tile.desc<tensor<128x128xf32>>
  func.return
}
