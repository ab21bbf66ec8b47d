// tma.async_load: one coordinate per box dimension
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %m: i32, %s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3>
  nvgpu.tma.async_load %d[%m] -> %buf[%s], %b[%s] : !tile.desc<tensor<128x64xf16>>, memref<3x128x64xf16, 3>, !nvgpu.mbarriers<3>
  func.return
}
