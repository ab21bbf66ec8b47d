func.func @mbarriers(%d: !tile.desc<tensor<64x64xf16>>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %buf = nvgpu.smem.alloc : memref<2x64x64xf16, 3 : i64>
  %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  %empty = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  nvgpu.mbarrier.init %full[%c0] count 1 : !nvgpu.mbarriers<2>
  nvgpu.mbarrier.init %empty[%c0] count 4 : !nvgpu.mbarriers<2>
  nvgpu.mbarrier.init %full[%c1] count 1 : !nvgpu.mbarriers<2>
  nvgpu.mbarrier.init %empty[%c1] count 4 : !nvgpu.mbarriers<2>
  nvgpu.fence.mbarrier_init
  nvgpu.wg.dispatch threads 256 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %q = arith.divui %k, %c2 : i32
        %p = arith.andi %q, %c1 : i32
        %pp = arith.xori %p, %c1 : i32
        nvgpu.mbarrier.try_wait.parity %empty[%s], %pp : !nvgpu.mbarriers<2>
        nvgpu.mbarrier.arrive_expect_tx %full[%s] bytes 8192 : !nvgpu.mbarriers<2>
        nvgpu.tma.async_load %d[%k, %c0] -> %buf[%s], %full[%s] : !tile.desc<tensor<64x64xf16>>, memref<2x64x64xf16, 3 : i64>, !nvgpu.mbarriers<2>
      }
    }
    nvgpu.wg.branch warps 4 to 8 "consumer" {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remui %k, %c2 : i32
        %q = arith.divui %k, %c2 : i32
        %p = arith.andi %q, %c1 : i32
        nvgpu.mbarrier.try_wait.parity %full[%s], %p : !nvgpu.mbarriers<2>
        %t = nvgpu.smem.view %buf[%s] : memref<2x64x64xf16, 3 : i64> -> tensor<64x64xf16, #layout.shared<swizzle = 128, order = [1, 0]>>
        nvgpu.mbarrier.arrive %empty[%s] per_warp : !nvgpu.mbarriers<2>
      }
    }
  }
  func.return
}
