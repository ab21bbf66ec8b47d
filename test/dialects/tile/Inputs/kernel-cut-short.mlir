// C = A @ B^T on 128x128 tiles (f16 in, f32 accumulation, f16 out) with a TMA-store
// epilogue. With ws-cooperative{groups=2} (ws-hopper{cooperative=2}) two consumer
// warp groups compute 64 rows each and gather the tile for one TMA store
// (warp_group.gather). Grid: (cdiv(M, 128), cdiv(N, 128)); out-of-bounds rows and
// columns of C are dropped by the TMA store.
func.func @tma_store_gemm(%a_desc: !tile.desc<tensor<128x64xf16>>, %b_desc: !tile.desc<tensor<128x64xf16>>,
                          %c_desc: !tile.desc<tensor<128x128xf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} 