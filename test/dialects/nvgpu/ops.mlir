// The nvgpu dialect in custom form: round trip, generic form, and the generic
// form re-parsing to the same custom text.
// RUN: ws-opt %s | ws-opt | filecheck %s
// RUN: ws-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @barriers(%s: i32, %p: i32)
// CHECK-NEXT: %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.mbarrier.init %full[%s] count 1 : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.fence.mbarrier_init
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity %full[%s], %p : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.mbarrier.arrive_expect_tx %full[%s] bytes 49152 : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.mbarrier.arrive %full[%s] per_warp : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.mbarrier.arrive %full[%s] per_thread : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.mbarrier.arrive %full[%s] once : !nvgpu.mbarriers<3> {tag}
// GENERIC: %full = "nvgpu.mbarrier.create"() : () -> !nvgpu.mbarriers<3>
// GENERIC-NEXT: "nvgpu.mbarrier.init"(%full, %s) <{count = 1 : i32}> : (!nvgpu.mbarriers<3>, i32) -> ()
// GENERIC: "nvgpu.mbarrier.try_wait.parity"(%full, %s, %p) : (!nvgpu.mbarriers<3>, i32, i32) -> ()
// GENERIC-NEXT: "nvgpu.mbarrier.arrive_expect_tx"(%full, %s) <{bytes = 49152 : i32}>
// GENERIC-NEXT: "nvgpu.mbarrier.arrive"(%full, %s) <{scope = "per_warp"}>
func.func @barriers(%s: i32, %p: i32) {
  %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
  nvgpu.mbarrier.init %full[%s] count 1 : !nvgpu.mbarriers<3>
  nvgpu.fence.mbarrier_init
  nvgpu.mbarrier.try_wait.parity %full[%s], %p : !nvgpu.mbarriers<3>
  nvgpu.mbarrier.arrive_expect_tx %full[%s] bytes 49152 : !nvgpu.mbarriers<3>
  nvgpu.mbarrier.arrive %full[%s] per_warp : !nvgpu.mbarriers<3>
  nvgpu.mbarrier.arrive %full[%s] per_thread : !nvgpu.mbarriers<3>
  nvgpu.mbarrier.arrive %full[%s] once : !nvgpu.mbarriers<3> {tag}
  func.return
}

// CHECK-LABEL: func.func @tma_and_smem(%d: !tile.desc<tensor<128x64xf16>>, %m: i32, %k: i32, %s: i32, %v: tensor<128x64xf16>)
// CHECK-NEXT: %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
// CHECK-NEXT: %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3 : i64>
// CHECK-NEXT: nvgpu.tma.async_load %d[%m, %k] -> %buf[%s], %full[%s] : !tile.desc<tensor<128x64xf16>>, memref<3x128x64xf16, 3 : i64>, !nvgpu.mbarriers<3>
// CHECK-NEXT: %a = nvgpu.smem.view %buf[%s] : memref<3x128x64xf16, 3 : i64>
// CHECK-NEXT: nvgpu.smem.store %v, %buf[%s] : memref<3x128x64xf16, 3 : i64>
// CHECK-NEXT: nvgpu.fence.proxy_async
// CHECK-NEXT: nvgpu.tma.async_store %buf[%s] -> %d[%m, %k] : memref<3x128x64xf16, 3 : i64>, !tile.desc<tensor<128x64xf16>>
// CHECK-NEXT: nvgpu.tma.async_store add %buf[%s] -> %d[%m, %k] : memref<3x128x64xf16, 3 : i64>, !tile.desc<tensor<128x64xf16>>
// CHECK-NEXT: nvgpu.tma.store_wait
// GENERIC: "nvgpu.tma.async_load"(%d, %m, %k, %buf, %s, %full, %s) : (!tile.desc<tensor<128x64xf16>>, i32, i32, memref<3x128x64xf16, 3 : i64>, i32, !nvgpu.mbarriers<3>, i32) -> ()
// GENERIC-NEXT: %a = "nvgpu.smem.view"(%buf, %s) : (memref<3x128x64xf16, 3 : i64>, i32) -> tensor<128x64xf16>
// GENERIC: "nvgpu.tma.async_store"(%buf, %s, %d, %m, %k) <{reduce = "add"}> : (memref<3x128x64xf16, 3 : i64>, i32, !tile.desc<tensor<128x64xf16>>, i32, i32) -> ()
func.func @tma_and_smem(%d: !tile.desc<tensor<128x64xf16>>, %m: i32, %k: i32, %s: i32, %v: tensor<128x64xf16>) {
  %full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3>
  nvgpu.tma.async_load %d[%m, %k] -> %buf[%s], %full[%s] : !tile.desc<tensor<128x64xf16>>, memref<3x128x64xf16, 3>, !nvgpu.mbarriers<3>
  %a = nvgpu.smem.view %buf[%s] : memref<3x128x64xf16, 3>
  nvgpu.smem.store %v, %buf[%s] : memref<3x128x64xf16, 3>
  nvgpu.fence.proxy_async
  nvgpu.tma.async_store %buf[%s] -> %d[%m, %k] : memref<3x128x64xf16, 3>, !tile.desc<tensor<128x64xf16>>
  nvgpu.tma.async_store add %buf[%s] -> %d[%m, %k] : memref<3x128x64xf16, 3>, !tile.desc<tensor<128x64xf16>>
  nvgpu.tma.store_wait
  func.return
}

// CHECK-LABEL: func.func @wgmma(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>, %acc: tensor<128x256xf32>)
// CHECK-NEXT: nvgpu.wgmma.fence
// CHECK-NEXT: %d = nvgpu.wgmma.mma_async %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
// CHECK-NEXT: nvgpu.wgmma.commit_group
// CHECK-NEXT: %r = nvgpu.wgmma.wait_group %d {pending = 1} : tensor<128x256xf32>
// CHECK-NEXT: nvgpu.wgmma.wait_group {pending = 0}
// GENERIC: %r = "nvgpu.wgmma.wait_group"(%d) <{pending = 1 : i32}> : (tensor<128x256xf32>) -> tensor<128x256xf32>
func.func @wgmma(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>, %acc: tensor<128x256xf32>) {
  nvgpu.wgmma.fence
  %d = nvgpu.wgmma.mma_async %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
  nvgpu.wgmma.commit_group
  %r = nvgpu.wgmma.wait_group %d {pending = 1} : tensor<128x256xf32>
  nvgpu.wgmma.wait_group {pending = 0}
  func.return
}

// CHECK-LABEL: func.func @dispatch()
// CHECK-NEXT: nvgpu.wg.dispatch threads 384 {
// CHECK-NEXT:   nvgpu.wg.branch warps 0 to 4 "producer" {
// CHECK-NEXT:     nvgpu.setmaxnreg dec 40
// CHECK-NEXT:     nvgpu.wg.lead_warp {
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   nvgpu.wg.branch warps 4 to 12 "consumer" {
// CHECK-NEXT:     nvgpu.setmaxnreg inc 232
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GENERIC: "nvgpu.wg.dispatch"() <{threads = 384 : i32}> ({
// GENERIC: "nvgpu.wg.branch"() <{first = 0 : i32, warps = 4 : i32, role = "producer"}> ({
// GENERIC-NEXT: "nvgpu.setmaxnreg"() <{action = "dec", regs = 40 : i32}> : () -> ()
// GENERIC-NEXT: "nvgpu.wg.lead_warp"() ({
func.func @dispatch() {
  nvgpu.wg.dispatch threads 384 {
    nvgpu.wg.branch warps 0 to 4 producer {
      nvgpu.setmaxnreg dec 40
      nvgpu.wg.lead_warp {
      }
    }
    nvgpu.wg.branch warps 4 to 12 "consumer" {
      nvgpu.setmaxnreg inc 232
    }
  }
  func.return
}

// Two CTAs per SM (ws-occupancy): the branches share half of the register file.
// CHECK-LABEL: func.func @dispatch_shared_sm()
// CHECK-NEXT: nvgpu.wg.dispatch threads 256 ctas_per_sm 2 {
// CHECK:        nvgpu.setmaxnreg inc 216
// GENERIC: "nvgpu.wg.dispatch"() <{threads = 256 : i32, ctas_per_sm = 2 : i32}> ({
func.func @dispatch_shared_sm() {
  nvgpu.wg.dispatch threads 256 ctas_per_sm 2 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
      nvgpu.setmaxnreg dec 40
    }
    nvgpu.wg.branch warps 4 to 8 "consumer" {
      nvgpu.setmaxnreg inc 216
    }
  }
  func.return
}
