// A computed in registers (f16): wgmma reads it as the register-A fragment.
func.func @f() {
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = arith.constant dense<1.0> : tensor<64x32xf16>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    }
  }
  func.return
}
