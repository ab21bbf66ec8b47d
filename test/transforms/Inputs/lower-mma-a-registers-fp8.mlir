// An fp8 A computed in registers (register A is lowered for f16 and bf16 only).
func.func @f() {
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a = arith.constant dense<1.0> : tensor<64x32xf8E4M3FN>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf8E4M3FN, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    }
  }
  func.return
}
