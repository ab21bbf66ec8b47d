// M = 64 rows for a branch of two warp groups (each issues m64 wgmmas: M must be 128k).
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  nvgpu.wg.dispatch threads 256 {
    nvgpu.wg.branch warps 0 to 8 "consumer" {
      %s = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%s] : memref<2x64x32xf16, 3 : i64>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    }
  }
  func.return
}
