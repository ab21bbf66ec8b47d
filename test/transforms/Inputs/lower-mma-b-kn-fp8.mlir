// An fp8 B as a KxN slot (N-contiguous): wgmma reads fp8 B K-major only.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xf8E4M3FN, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x32x64xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xf8E4M3FN, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x32x64xf8E4M3FN, 3 : i64>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %b, %acc : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    }
  }
  func.return
}
