// A dot in a warp-group branch that maps to wgmma: A an MxK slot, B tile.trans of an
// NxK slot, f16 with f32 accumulation, K = 32 (two k16 steps), N = 64, M = 64 (one warp group).
func.func @ok() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      %e = mma.async_dot %a, %bt, %d : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      %r = mma.wait %e {pending = 0} : tensor<64x64xf32>
    }
  }
  %a2 = arith.constant dense<0.0> : tensor<64x32xf16>
  %b2 = arith.constant dense<0.0> : tensor<32x64xf16>
  %c2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %d2 = tile.dot %a2, %b2, %c2 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  func.return
}
