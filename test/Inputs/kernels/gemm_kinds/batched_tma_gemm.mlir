// Batched C[b] (f16) = A[b] @ B[b]^T for b < batch: A is [batch, M, K], B is [batch, N, K]
// (torch.bmm(a, b.transpose(1, 2))), C is [batch, M, N]; fp32 accumulation.
// 128x256x64 tiles, 8 consumer warps (two warp groups of 64 rows). A, B and C go through
// 3-D TMA descriptors (2-D boxes; each access names its batch first, so TMA clips at
// that batch's M, N and K: reads past them give 0, the TMA store drops rows and columns
// past M and N). Grid: (cdiv(M, 128), cdiv(N, 256), batch). Arguments: a, b, c, K.
func.func @batched_tma_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<256x64xf16>>,
                            %c_desc: !tile.desc<tensor<128x256xf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pm = tile.program_id 0 : i32
  %pn = tile.program_id 1 : i32
  %pb = tile.program_id 2 : i32
  %om = arith.muli %pm, %c128 : i32
  %on = arith.muli %pn, %c256 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<128x256xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%pb, %om, %ok] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b = tile.desc_load %b_desc[%pb, %on, %ok] : !tile.desc<tensor<256x64xf16>> -> tensor<256x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
    %d = tile.dot %a, %bt, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<128x256xf32>, i32
  }
  %c = arith.truncf %r#0 : tensor<128x256xf32> to tensor<128x256xf16>
  tile.desc_store %c_desc[%pb, %om, %on], %c : !tile.desc<tensor<128x256xf16>>
  func.return
}
