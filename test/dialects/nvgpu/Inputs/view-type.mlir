// smem.view: the result is one slot (generic form)
func.func @f(%s: i32) {
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3>
  %v = "nvgpu.smem.view"(%buf, %s) : (memref<3x128x64xf16, 3>, i32) -> tensor<64x64xf16>
  func.return
}
