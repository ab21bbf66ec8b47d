// smem.alloc: buffers live in shared memory (space 3)
func.func @f() {
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16>
  func.return
}
