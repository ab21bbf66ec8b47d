// fp8 P·V (FlashAttention-3's FP8 forward): fp8 wgmma reads both operands K-major, so an fp8 V
// in its slot as loaded (KxN, N contiguous) is transposed into a buffer of the consumer branch
// by ws-stage-operands (read from the slot right where it is stored), and the dot reads
// tile.trans of the buffer (K-major B); the fp8 P, computed in the accumulator fragment, stays
// in registers and ws-lower-layouts converts it into wgmma's 8-bit A fragment
// (nvgpu.convert_layout to #layout.operand_a) before the wgmma group.
//
// RUN: ws-opt %s -p ws-stage-operands | filecheck %s
// RUN: ws-opt %s -p ws-stage-operands,ws-lower-mma,ws-lower-layouts | filecheck %s --check-prefix=LAY

// In the loop, the previous iteration's P·V read the buffer; this iteration's wait for Q K^T
// (pending 0) has retired it, so no mma.wait is added, and the branch's barrier (id 2, the
// second branch, 256 threads) makes that true for both warp groups before V^T is stored.
// CHECK-LABEL: func.func @fp8_pv
// CHECK:       %[[BUF:v_stage]] = nvgpu.smem.alloc : memref<1x128x128xf8E4M3FN, 3 : i64>
// CHECK-NEXT:  nvgpu.wg.dispatch
// CHECK:       scf.for
// CHECK:         %s = mma.async_dot %q, %kt, %zero
// CHECK:         %v = nvgpu.smem.view %vbuf
// CHECK-NEXT:    nvvm.barrier 2 threads 256
// CHECK-NEXT:    %v_t = tile.trans %v [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    nvgpu.smem.store %v_t, %[[BUF]][%[[Z]]] : memref<1x128x128xf8E4M3FN, 3 : i64>
// CHECK-NEXT:    nvgpu.fence.proxy_async
// CHECK-NEXT:    nvvm.barrier 2 threads 256
// CHECK-NEXT:    %v_s = nvgpu.smem.view %[[BUF]][%[[Z]]] : memref<1x128x128xf8E4M3FN, 3 : i64>
// CHECK-NEXT:    %v_a = tile.trans %v_s [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
// CHECK-NEXT:    %acc2 = mma.async_dot %p8, %v_a, %acc
// The slot tile is read into registers as ldmatrix.trans leaves it (#layout.transpose_copy:
// 16-byte rows of V in, 16-byte rows of V^T out by stmatrix) only to be stored, keys in FA3's order
// (interleave = 8, the default fp8-keys), as P's A fragment takes them; P is converted right before its
// wgmma group.
// LAY-LABEL:   func.func @fp8_pv
// LAY:         %v_t = tile.trans %v [1, 0] : tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [1, 0]>> -> tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [0, 1]>>
// LAY-NEXT:    %v_t_r = nvgpu.smem.load %v_t : {{.*}} -> tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 8], interleave = 8>>
// LAY:         nvgpu.smem.store %v_t_r, %v_stage
// LAY:         %v_a = tile.trans %v_s [1, 0] : tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [1, 0], interleave = 8>> -> tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [0, 1], interleave = 8>>
// LAY-NEXT:    %p8_frag = nvgpu.convert_layout %p8 : tensor<128x128xf8E4M3FN, #layout.wgmma<warp_groups = 2>> -> tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>, interleave = 8>>
// LAY-NEXT:    nvgpu.wgmma.fence
// LAY-NEXT:    %acc2 = nvgpu.wgmma.mma_async %p8_frag, %v_a, %acc : tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>, interleave = 8>>, tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [0, 1], interleave = 8>> -> tensor<128x128xf32, #layout.wgmma<warp_groups = 2>>
func.func @fp8_pv(%n: i32) {
  %qbuf = nvgpu.smem.alloc : memref<1x128x64xf8E4M3FN, 3 : i64>
  %kbuf = nvgpu.smem.alloc : memref<1x128x64xf8E4M3FN, 3 : i64>
  %vbuf = nvgpu.smem.alloc : memref<2x128x128xf8E4M3FN, 3 : i64>
  nvgpu.wg.dispatch threads 384 {
    nvgpu.wg.branch warps 0 to 4 "producer" {
    }
    nvgpu.wg.branch warps 4 to 12 "consumer" {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %q = nvgpu.smem.view %qbuf[%c0] : memref<1x128x64xf8E4M3FN, 3 : i64>
      %k = nvgpu.smem.view %kbuf[%c0] : memref<1x128x64xf8E4M3FN, 3 : i64>
      %kt = tile.trans %k [1, 0] : tensor<128x64xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
      %zero = arith.constant dense<0.0> : tensor<128x128xf32>
      %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
      %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
        %s = mma.async_dot %q, %kt, %zero : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x128xf32>
        %sr = mma.wait %s {pending = 0} : tensor<128x128xf32>
        %p = math.exp2 %sr : tensor<128x128xf32>
        %p8 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf8E4M3FN>
        %v = nvgpu.smem.view %vbuf[%j] : memref<2x128x128xf8E4M3FN, 3 : i64>
        %acc2 = mma.async_dot %p8, %v, %acc : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        %acc3 = mma.wait %acc2 {pending = 1} : tensor<128x128xf32>
        scf.yield %acc3 : tensor<128x128xf32>
      }
      %done = mma.wait %r {pending = 0} : tensor<128x128xf32>
    }
  }
  func.return
}
