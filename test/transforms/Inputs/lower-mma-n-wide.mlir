// N = 272: one wgmma is at most n256.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xbf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x272x32xbf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xbf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x272x32xbf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<272x32xbf16> -> tensor<32x272xbf16>
      %acc = arith.constant dense<0.0> : tensor<64x272xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x32xbf16>, tensor<32x272xbf16> -> tensor<64x272xf32>
    }
  }
  func.return
}
