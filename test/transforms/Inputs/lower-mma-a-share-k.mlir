// A sliced along K (warp_group.share along 1): its rows are no longer whole slot rows.
func.func @f() {
  %abuf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  %bbuf = nvgpu.smem.alloc : memref<2x64x32xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %s = arith.constant 0 : i32
      %a0 = nvgpu.smem.view %abuf[%s] : memref<2x64x64xf16, 3 : i64>
      %a = warp_group.share %a0, 0 of 2 along 1 : tensor<64x64xf16> -> tensor<64x32xf16>
      %b = nvgpu.smem.view %bbuf[%s] : memref<2x64x32xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.dot %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    }
  }
  func.return
}
