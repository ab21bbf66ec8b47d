// ws-producer-transpose: an fp8 V in its ring as loaded (KxN, N contiguous), which fp8 wgmma
// cannot read as B, is transposed by the producer into a ring of its own (FlashAttention-3's
// in-kernel V transpose): the producer keeps V in a ring of two slots, transposes the previous
// iteration's tile after issuing the current copy (the loop carries that position) and the last
// one after the loop; the consumers read V^T (a K-major B through tile.trans) from the new ring,
// which takes V's depth and consumers. The producer's registers are raised to 56 (at least
// the 128x128 byte tile over 128 threads, 32 registers, plus 16), the consumers' lowered from
// 232 to 224 to make room.
//
// RUN: ws-opt %s -p ws-producer-transpose | filecheck %s
// RUN: ws-opt %s -p 'ws-producer-transpose{placement=consumer}' | filecheck %s --check-prefix=CONS
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-specialize{persistent=false}' | filecheck %s --check-prefix=SPEC
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper{v-transpose=producer}' -t ptx 2>/dev/null | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper{v-transpose=consumer}' 2>/dev/null | filecheck %s --check-prefix=STAGE
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper{v-transpose=producer persistent=false fp8-keys=natural}' 2>/dev/null | filecheck %s --check-prefix=LOW

// CHECK-LABEL: func.func @pv
// CHECK:       %aref_v = aref.create : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 2>
// CHECK-NEXT:  %aref_vt = aref.create : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>
// CHECK:       warp_group.partition 0 producer warps 4 regs 56 {
// CHECK:         %[[POS:.*]], %[[HAS:.*]] = scf.for %j = %c0 to %n step %c1 iter_args(%t_pos = %{{.*}}, %t_has = %{{.*}}) -> (i32, i1) : i32 {
// CHECK:           aref.put %aref_v[%j], %v
// CHECK-NEXT:      scf.if %t_has {
// CHECK-NEXT:        %v_in = aref.get %aref_v[%t_pos]
// CHECK-NEXT:        %v_in_t = tile.trans %v_in [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
// CHECK-NEXT:        aref.put %aref_vt[%t_pos], %v_in_t
// CHECK-NEXT:        aref.consumed %aref_v[%t_pos]
// CHECK:           scf.yield %j, %{{.*}} : i32, i1
// CHECK:         scf.if %[[HAS]] {
// CHECK-NEXT:      %{{.*}} = aref.get %aref_v[%[[POS]]]
// CHECK:         warp_group.partition 1 consumer warps 8 regs 224 {
// CHECK:           %vt = aref.get %aref_vt[%[[J:.*]]]
// CHECK-NEXT:      %[[V:.*]] = tile.trans %vt [1, 0]
// CHECK-NEXT:      %a = mma.async_dot %p, %[[V]], %acc
// CHECK:           aref.consumed %aref_vt[%[[J]]]

// placement=consumer: unchanged (ws-stage-operands transposes V in the consumers).
// CONS-NOT:    aref_vt
// CONS:        warp_group.partition 0 producer warps 4 regs 24 {
// CONS-NOT:    aref_vt

// Through ws-specialize (the default placement is auto): the bundled kernel's V.
// SPEC:        %aref_v = aref.create : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 2>
// SPEC-NEXT:   %aref_vt = aref.create : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>
// SPEC:        warp_group.partition 0 producer warps 4 regs 56 {
// SPEC:          aref.put %aref_vt[%t_pos], %v_in_t
// SPEC:        warp_group.partition 1 consumer warps 8 regs 224 {
// SPEC-NOT:      aref.get %aref_v[
// SPEC:          aref.get %aref_vt[

// In PTX, the producer warp group (setmaxnreg 56) loads V 16 bytes along a row per lane
// (ldmatrix.trans), permutes bytes with per-lane selectors and stores V^T (stmatrix), fences
// and arrives on V^T's FULL barrier; the consumers have no named barrier
// before P·V (only the epilogue's), and the wgmma reads V^T K-major.
// PTX:         setmaxnreg.dec.sync.aligned.u32 56;
// PTX:         mbarrier.try_wait.parity
// PTX:         ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX:         prmt.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// PTX:         stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX:         fence.proxy.async.shared::cta;
// PTX:         mbarrier.arrive.shared::cta.b64
// PTX:         setmaxnreg.inc.sync.aligned.u32 224;
// PTX-NOT:     bar.sync 2, 256;
// PTX:         wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;

// Lowered: V^T's FULL barrier expects one arrival per producer thread (each publishes its own
// stores, after fence.proxy.async); its EMPTY one per consumer warp (only wgmma reads V^T, a
// copy of V's slot: released as a TMA-filled slot is); the producer's four warps all run (no
// nvgpu.wg.lead_warp) and release V's slot per warp once copied.
// LOW:         %aref_v_buf0 = nvgpu.smem.alloc : memref<2x128x128xf8E4M3FN, 3 : i64>
// LOW:         nvgpu.mbarrier.init %aref_v_empty[%{{.*}}] count 4 : !nvgpu.mbarriers<2>
// LOW:         %aref_vt_buf0 = nvgpu.smem.alloc : memref<4x128x128xf8E4M3FN, 3 : i64>
// LOW:         nvgpu.mbarrier.init %aref_vt_full[%{{.*}}] count 128 : !nvgpu.mbarriers<4>
// LOW-NEXT:    nvgpu.mbarrier.init %aref_vt_empty[%{{.*}}] count 8 : !nvgpu.mbarriers<4>
// LOW:         nvgpu.wg.branch warps 0 to 4 "producer" {
// LOW-NEXT:      nvgpu.setmaxnreg dec 56
// LOW-NOT:       nvgpu.wg.lead_warp
// LOW:           nvgpu.mbarrier.try_wait.parity %aref_v_full
// LOW:           %v_in_t_r = nvgpu.smem.load %v_in_t : {{.*}} -> tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 4]>>
// LOW:           nvgpu.smem.store %v_in_t_r, %aref_vt_buf0
// LOW-NEXT:      nvgpu.fence.proxy_async
// LOW-NEXT:      nvgpu.mbarrier.arrive %aref_vt_full[%{{.*}}] per_thread
// LOW:           nvgpu.mbarrier.arrive %aref_v_empty[%{{.*}}] per_warp
// LOW:         nvgpu.wg.branch warps 4 to 12 "consumer" {
// LOW-NEXT:      nvgpu.setmaxnreg inc 224
// LOW-NOT:       nvvm.barrier 2
// LOW:           nvgpu.mbarrier.try_wait.parity %aref_vt_full
// LOW:           nvgpu.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x128xf8E4M3FN, #layout.operand_a<{{.*}}>>, tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [0, 1]>>
// LOW:           nvgpu.mbarrier.arrive %aref_vt_empty[%{{.*}}] per_warp

// v-transpose=consumer: the consumers' staging buffer (ws-stage-operands), producer at 40.
// STAGE:       %v_stage = nvgpu.smem.alloc : memref<1x128x128xf8E4M3FN, 3 : i64>
// STAGE:       nvgpu.setmaxnreg dec 40
// STAGE:       nvgpu.smem.store %v_t_r, %v_stage

func.func @pv(%v_desc: !tile.desc<tensor<128x128xf8E4M3FN>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %aref_v = aref.create : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>
  warp_group.region {
    warp_group.partition 0 producer warps 4 regs 24 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        %v = tile.desc_load %v_desc[%j, %c0] : !tile.desc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
        aref.put %aref_v[%j], %v : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>
      }
    }
    warp_group.partition 1 consumer warps 8 regs 232 {
      %p = arith.constant dense<1.0> : tensor<128x128xf8E4M3FN>
      %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
      %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
        %v = aref.get %aref_v[%j] : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>
        %a = mma.async_dot %p, %v, %acc : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
        %a2 = mma.wait %a {pending = 0} : tensor<128x128xf32>
        aref.consumed %aref_v[%j] : !aref.ring<tensor<128x128xf8E4M3FN>, depth = 3>
        scf.yield %a2 : tensor<128x128xf32>
      }
    }
  }
  func.return
}
