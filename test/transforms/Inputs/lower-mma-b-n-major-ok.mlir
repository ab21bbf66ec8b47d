// B a KxN slot (N-contiguous, f16): the MN-major B (wgmma transpose-B).
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x32x64xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x32x64xf16, 3 : i64>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    }
  }
  func.return
}
