// fp8: one wgmma covers K = 32; K = 16 is not a multiple of it.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x16xf8E4M3FN, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x16xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x16xf8E4M3FN, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x16xf8E4M3FN, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x16xf8E4M3FN> -> tensor<16x64xf8E4M3FN>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x16xf8E4M3FN>, tensor<16x64xf8E4M3FN> -> tensor<64x64xf32>
    }
  }
  func.return
}
