// ws-stage-operands: register tiles that wgmma reads from shared memory (a transposed A, a B)
// are stored in a buffer of the branch before the dot; valid inputs here, one per `// -----`
// part (ws-stage-operands-invalid.mlir has the refusals).
//
// RUN: ws-opt %s --split-input-file -p ws-stage-operands | filecheck %s
// And what it leaves is what ws-lower-mma lowers (M-contiguous A, K- or N-major B):
// RUN: ws-opt %s --split-input-file -p ws-stage-operands,ws-lower-mma | filecheck %s --check-prefix=MMA

// The dS case, pipelined as ws-pipeline-mma leaves attention: the transposed tile of the last
// iteration is A of this iteration's dot, whose group stays in flight over the back edge. The
// tile is stored as computed (trans back), once the previous reader has retired in this
// group (wait_group 1: only this iteration's Q K^T since) and in every group of the
// branch (its named barrier, id 2: the second branch, 256 threads).
// CHECK-LABEL: func.func @inflight
// CHECK:       %[[BUF:pt_stage]] = nvgpu.smem.alloc : memref<1x128x128xf16, 3 : i64>
// CHECK-NEXT:  nvgpu.wg.dispatch
// CHECK:       scf.for
// CHECK:         %s = mma.async_dot %q, %kt, %zero
// CHECK:         %pt_t = tile.trans %pt [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
// CHECK-NEXT:    mma.wait {pending = 1}
// CHECK-NEXT:    nvvm.barrier 2 threads 256
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    nvgpu.smem.store %pt_t, %[[BUF]][%[[Z]]] : memref<1x128x128xf16, 3 : i64>
// CHECK-NEXT:    nvgpu.fence.proxy_async
// CHECK-NEXT:    nvvm.barrier 2 threads 256
// CHECK-NEXT:    %pt_s = nvgpu.smem.view %[[BUF]][%[[Z]]] : memref<1x128x128xf16, 3 : i64>
// CHECK-NEXT:    %pt_a = tile.trans %pt_s [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
// CHECK-NEXT:    %acc2 = mma.async_dot %pt_a, %v, %acc
// After the loop the same buffer: the loop's last reader retired first (nothing issued since).
// CHECK:       %r_t = tile.trans %r [1, 0]
// CHECK-NEXT:  mma.wait {pending = 0}
// CHECK-NEXT:  nvvm.barrier 2 threads 256
// CHECK:       nvgpu.smem.store %r_t, %[[BUF]]
// CHECK:       %last = mma.async_dot %r_a, %v2, %r_1
// CHECK-NOT:   nvgpu.smem.alloc
// MMA-LABEL:   func.func @inflight
// MMA:         %acc2 = nvgpu.wgmma.mma_async %pt_a, %v, %acc : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
func.func @inflight(%n: i32) {
  %qbuf = nvgpu.smem.alloc : memref<2x128x64xf16, 3 : i64>
  %kbuf = nvgpu.smem.alloc : memref<1x128x64xf16, 3 : i64>
  %vbuf = nvgpu.smem.alloc : memref<2x128x64xf16, 3 : i64>
  nvgpu.wg.dispatch threads 384 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
    }
    nvgpu.wg.branch warps 4 to 12 "consumer" {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %k = nvgpu.smem.view %kbuf[%c0] : memref<1x128x64xf16, 3 : i64>
      %kt = tile.trans %k [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %zero = arith.constant dense<0.0> : tensor<128x128xf32>
      %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
      %q0 = nvgpu.smem.view %qbuf[%c0] : memref<2x128x64xf16, 3 : i64>
      %s0 = mma.async_dot %q0, %kt, %zero : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      %s0r = mma.wait %s0 {pending = 0} : tensor<128x128xf32>
      %p0 = arith.truncf %s0r : tensor<128x128xf32> to tensor<128x128xf16>
      %pt0 = tile.trans %p0 [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
      %r:2 = scf.for %j = %c1 to %n step %c1 iter_args(%pt = %pt0, %acc = %acc0) -> (tensor<128x128xf16>, tensor<128x64xf32>) : i32 {
        %q = nvgpu.smem.view %qbuf[%c0] : memref<2x128x64xf16, 3 : i64>
        %s = mma.async_dot %q, %kt, %zero : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
        %v = nvgpu.smem.view %vbuf[%c0] : memref<2x128x64xf16, 3 : i64>
        %acc2 = mma.async_dot %pt, %v, %acc : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
        %sr = mma.wait %s {pending = 1} : tensor<128x128xf32>
        %p = arith.truncf %sr : tensor<128x128xf32> to tensor<128x128xf16>
        %ptn = tile.trans %p [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
        scf.yield %ptn, %acc2 : tensor<128x128xf16>, tensor<128x64xf32>
      }
      %v2 = nvgpu.smem.view %vbuf[%c1] : memref<2x128x64xf16, 3 : i64>
      %last = mma.async_dot %r#0, %v2, %r#1 : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %done = mma.wait %last {pending = 0} : tensor<128x64xf32>
    }
  }
  func.return
}

// -----

// Outside a loop, the first reader of its buffer: no wait, no barrier before the store. B in
// registers (an f16 KxN tile) is read N-contiguous; B = trans of a register NxK tile is stored
// as computed and read K-major, from the same buffer (one per tile type and operand in a
// branch): the earlier reader is a synchronous dot (retired), so only the barrier comes first.
// A register A in the accumulator layout stays in registers.
// CHECK-LABEL: func.func @register_b
// CHECK:       %y_stage = nvgpu.smem.alloc : memref<1x64x64xf16, 3 : i64>
// CHECK-NOT:   nvgpu.smem.alloc
// CHECK:       %y = arith.truncf
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  nvgpu.smem.store %y, %y_stage[%[[Z]]]
// CHECK-NEXT:  nvgpu.fence.proxy_async
// CHECK-NEXT:  nvvm.barrier 1 threads 128
// CHECK-NEXT:  %y_s = nvgpu.smem.view %y_stage[%[[Z]]]
// CHECK-NEXT:  %d1 = tile.dot %a, %y_s, %acc
// CHECK:       %wt = tile.trans %w [1, 0]
// CHECK-NEXT:  nvvm.barrier 1 threads 128
// CHECK-NEXT:  %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  nvgpu.smem.store %w, %y_stage[%[[Z2]]]
// CHECK:       %w_s = nvgpu.smem.view %y_stage
// CHECK-NEXT:  %w_a = tile.trans %w_s [1, 0]
// CHECK-NEXT:  %d2 = tile.dot %y, %w_a, %d1
// MMA-LABEL:   func.func @register_b
// MMA:         nvgpu.wgmma.mma_async %a, %y_s, %acc
// MMA:         nvgpu.wgmma.mma_async %y, %w_a, %d1
func.func @register_b() {
  %abuf = nvgpu.smem.alloc : memref<1x64x64xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %c0 = arith.constant 0 : i32
      %a = nvgpu.smem.view %abuf[%c0] : memref<1x64x64xf16, 3 : i64>
      %at = tile.trans %a [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32>
      %x = tile.dot %a, %at, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %y = arith.truncf %x : tensor<64x64xf32> to tensor<64x64xf16>
      %d1 = tile.dot %a, %y, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %w = arith.truncf %d1 : tensor<64x64xf32> to tensor<64x64xf16>
      %wt = tile.trans %w [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %d2 = tile.dot %y, %wt, %d1 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    }
  }
  func.return
}

// -----

// A synchronous dot in a loop retires its own group: the store only waits for the other
// threads (the branch's barrier), no mma.wait.
// CHECK-LABEL: func.func @synchronous
// CHECK:       scf.for
// CHECK-NOT:   mma.wait
// CHECK:       nvvm.barrier 1 threads 128
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  nvgpu.smem.store %y
// CHECK:       tile.dot %y_a, %b, %acc
func.func @synchronous(%n: i32) {
  %abuf = nvgpu.smem.alloc : memref<1x64x64xf16, 3 : i64>
  nvgpu.wg.dispatch threads 128 {
    nvgpu.wg.branch warps 0 to 4 "consumer" {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %a = nvgpu.smem.view %abuf[%c0] : memref<1x64x64xf16, 3 : i64>
      %b = nvgpu.smem.view %abuf[%c0] : memref<1x64x64xf16, 3 : i64>
      %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
      %zero = arith.constant dense<0.0> : tensor<64x64xf32>
      %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
        %x = tile.dot %a, %bt, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
        %y = arith.truncf %x : tensor<64x64xf32> to tensor<64x64xf16>
        %yt = tile.trans %y [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
        %d = tile.dot %yt, %b, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
    }
  }
  func.return
}
