// Invalid nvgpu ops.
//
// The cases whose diagnostic is at an op are the `// -----` parts of this file, checked
// with --verify-diagnostics; those whose column matters (types, syntax) keep one file
// each in Inputs/ and FileCheck lines with the exact file:line:col message. Neither may
// print a traceback.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// !nvgpu.mbarriers: at least one barrier.
// RUN: not ws-opt %S/Inputs/mbarriers-zero.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,MBARRIERS-ZERO
// MBARRIERS-ZERO: {{.*}}Inputs/mbarriers-zero.mlir:3:32: error: !nvgpu.mbarriers needs at least one barrier, got 0

// arrive: the scope is per_warp, per_thread or once.
// RUN: not ws-opt %S/Inputs/arrive-scope.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ARRIVE-SCOPE
// ARRIVE-SCOPE: {{.*}}Inputs/arrive-scope.mlir:4:32: error: expected an arrive scope (per_warp, per_thread, once)

// setmaxnreg: inc or dec.
// RUN: not ws-opt %S/Inputs/setmaxnreg-action.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SETMAXNREG-ACTION
// SETMAXNREG-ACTION: {{.*}}Inputs/setmaxnreg-action.mlir:3:20: error: expected 'inc' or 'dec'

// -----

// init: a barrier expects at least one arrival.
// init: a barrier expects at least one arrival
func.func @f(%s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  // expected-error@+1 {{'nvgpu.mbarrier.init' mbarrier arrival count must be >= 1, got 0}}
  nvgpu.mbarrier.init %b[%s] count 0 : !nvgpu.mbarriers<2>
  func.return
}

// -----

// try_wait.parity: slot and parity are i32 (generic form).
// try_wait.parity: slot and parity are i32 (generic form)
func.func @f(%s: i32, %p: i64) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  // expected-error@+1 {{'nvgpu.mbarrier.try_wait.parity' slot indices and parities must be i32, got i64}}
  "nvgpu.mbarrier.try_wait.parity"(%b, %s, %p) : (!nvgpu.mbarriers<2>, i32, i64) -> ()
  func.return
}

// -----

// arrive_expect_tx: the byte count is positive.
// arrive_expect_tx: the byte count is positive
func.func @f(%s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<2>
  // expected-error@+1 {{'nvgpu.mbarrier.arrive_expect_tx' transaction bytes must be in [1, 2^20), got 0}}
  nvgpu.mbarrier.arrive_expect_tx %b[%s] bytes 0 : !nvgpu.mbarriers<2>
  func.return
}

// -----

// smem.alloc: buffers live in shared memory (space 3).
// smem.alloc: buffers live in shared memory (space 3)
func.func @f() {
  // expected-error@+1 {{'nvgpu.smem.alloc' shared-memory buffers live in memory space 3, got memref<3x128x64xf16>}}
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16>
  func.return
}

// -----

// tma.async_load: the descriptor's box is one slot of the buffer.
// tma.async_load: the descriptor's box is one slot of the buffer
func.func @f(%d: !tile.desc<tensor<64x64xf16>>, %m: i32, %s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3>
  // expected-error@+1 {{'nvgpu.tma.async_load' TMA box tensor<64x64xf16> does not match a slot of memref<3x128x64xf16, 3 : i64>}}
  nvgpu.tma.async_load %d[%m, %m] -> %buf[%s], %b[%s] : !tile.desc<tensor<64x64xf16>>, memref<3x128x64xf16, 3>, !nvgpu.mbarriers<3>
  func.return
}

// -----

// tma.async_load: one coordinate per box dimension.
// tma.async_load: one coordinate per box dimension
func.func @f(%d: !tile.desc<tensor<128x64xf16>>, %m: i32, %s: i32) {
  %b = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3>
  // expected-error@+1 {{'nvgpu.tma.async_load' 2-D box needs 2 coordinates, got 1}}
  nvgpu.tma.async_load %d[%m] -> %buf[%s], %b[%s] : !tile.desc<tensor<128x64xf16>>, memref<3x128x64xf16, 3>, !nvgpu.mbarriers<3>
  func.return
}

// -----

// smem.view: the result is one slot (generic form).
// smem.view: the result is one slot (generic form)
func.func @f(%s: i32) {
  %buf = nvgpu.smem.alloc : memref<3x128x64xf16, 3>
  // expected-error@+1 {{'nvgpu.smem.view' a slot of memref<3x128x64xf16, 3 : i64> is tensor<128x64xf16>, not tensor<64x64xf16>}}
  %v = "nvgpu.smem.view"(%buf, %s) : (memref<3x128x64xf16, 3>, i32) -> tensor<64x64xf16>
  func.return
}

// -----

// setmaxnreg: a multiple of 8 in [24, 256].
// setmaxnreg: a multiple of 8 in [24, 256]
func.func @f() {
  // expected-error@+1 {{'nvgpu.setmaxnreg' setmaxnreg needs a multiple of 8 in [24, 256], got 230}}
  nvgpu.setmaxnreg inc 230
  func.return
}

// -----

// dispatch: branches cover the warps in order.
// dispatch: branches cover the warps in order
func.func @f() {
  // expected-error@+1 {{'nvgpu.wg.dispatch' branches must cover the warps in order without gaps: expected a branch at warp 0, got 4}}
  nvgpu.wg.dispatch threads 256 {
    nvgpu.wg.branch warps 4 to 8 "consumer" {
    }
  }
  func.return
}

// -----

// dispatch: at two CTAs per SM the budgets fit what one CTA holds from launch (80 a thread).
// dispatch: at two CTAs per SM the budgets fit what one CTA holds from launch
func.func @f() {
  // expected-error@+1 {{'nvgpu.wg.dispatch' register budgets need 64512 registers, the CTA holds 30720 (80 a thread from launch, 2 CTAs sharing the 65536; a setmaxnreg.inc beyond them would wait forever)}}
  nvgpu.wg.dispatch threads 384 ctas_per_sm 2 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
      nvgpu.setmaxnreg dec 40
    }
    nvgpu.wg.branch warps 4 to 12 "consumer" {
      nvgpu.setmaxnreg inc 232
    }
  }
  func.return
}

// -----

// dispatch: the CTAs that share an SM fit its 2048 threads.
// dispatch: the CTAs that share an SM fit its 2048 threads
func.func @f() {
  // expected-error@+1 {{'nvgpu.wg.dispatch' 3 CTAs of 1024 threads per SM: an SM holds at most 2048 threads (and at least one CTA)}}
  nvgpu.wg.dispatch threads 1024 ctas_per_sm 3 {
    nvgpu.wg.branch warps 0 to 32 "all" {
    }
  }
  func.return
}

// -----

// dispatch: register budgets fit what the CTA holds from launch: 384 threads start with 168
// registers each (64512), and setmaxnreg only moves them between the warp groups, so a
// producer at 32 beside 2 x 240 (65536, the whole file) would leave the consumers' .inc
// waiting forever (FlashAttention-3's split is 24 + 2 x 240).
// dispatch: register budgets fit what the CTA holds from launch
func.func @f() {
  // expected-error@+1 {{'nvgpu.wg.dispatch' register budgets need 65536 registers, the CTA holds 64512 (168 a thread from launch; a setmaxnreg.inc beyond them would wait forever)}}
  nvgpu.wg.dispatch threads 384 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
      nvgpu.setmaxnreg dec 32
    }
    nvgpu.wg.branch warps 4 to 12 "consumer" {
      nvgpu.setmaxnreg inc 240
    }
  }
  func.return
}

// -----

// branch: whole warp groups.
// branch: whole warp groups
func.func @f() {
  nvgpu.wg.dispatch threads 128 {
    // expected-error@+1 {{'nvgpu.wg.branch' a branch is whole warp groups: first warp 0 and warp count 2 must be multiples of 4}}
    nvgpu.wg.branch warps 0 to 2 "a" {
    }
    nvgpu.wg.branch warps 2 to 4 "b" {
    }
  }
  func.return
}

// -----

// wgmma.wait_group: pending in [0, 7].
// wgmma.wait_group: pending in [0, 7]
func.func @f() {
  // expected-error@+1 {{'nvgpu.wgmma.wait_group' wgmma.wait_group pending must be in [0, 7], got 9}}
  nvgpu.wgmma.wait_group {pending = 9}
  func.return
}

// -----

// wg.lead_warp: directly inside a branch.
// wg.lead_warp: directly inside a branch
func.func @f() {
  // expected-error@+1 {{'nvgpu.wg.lead_warp' nvgpu.wg.lead_warp must be directly inside nvgpu.wg.branch}}
  nvgpu.wg.lead_warp {
  }
  func.return
}

// -----

// tma.async_store min / max: i32 boxes only (the tile.desc_store kinds).
func.func @f(%d: !tile.desc<tensor<64x64xf32>>, %s: i32, %m: i32) {
  %buf = nvgpu.smem.alloc : memref<1x64x64xf32, 3>
  // expected-error@+1 {{'nvgpu.tma.async_store' tma.async_store max takes i32 blocks, got f32}}
  nvgpu.tma.async_store max %buf[%s] -> %d[%m, %m] : memref<1x64x64xf32, 3>, !tile.desc<tensor<64x64xf32>>
  func.return
}
