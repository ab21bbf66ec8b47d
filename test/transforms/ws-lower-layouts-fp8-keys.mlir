// ws-lower-layouts{fp8-keys=interleaved} (ws-hopper's option fp8-keys; wsdialects/lower/key_order.py):
// FlashAttention-3's key order. The V^T ring the producer fills by its transposing copy and that
// only P·V's wgmma reads stores each 16 keys interleaved (position 4c + 2 i1 + i0: key
// 8 i1 + 2c + i0): the copy, the slot views and P's A fragment all say interleave = 8, and P's
// conversion has no shuffles (lane c's own accumulator bytes are its A bytes); ws-hopper's default.
// fp8-keys=natural keeps the quad shuffles; a TMA-loaded V^T is never interleaved.
//
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper' 2>/dev/null | filecheck %s
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper{fp8-keys=interleaved}' -t ptx 2>/dev/null | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper{fp8-keys=natural}' -t ptx 2>/dev/null | filecheck %s --check-prefix=NAT
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8_vt.mlir -p 'ws-hopper{fp8-keys=interleaved}' 2>/dev/null | filecheck %s --check-prefix=VT
// RUN: not ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper{fp8-keys=fa3}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK:       nvgpu.wg.branch warps 0 to 4 "producer" {
// CHECK:         %v_in_t_r = nvgpu.smem.load %v_in_t : tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [0, 1]>> -> tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 4], interleave = 8>>
// CHECK:         nvgpu.smem.store %v_in_t_r, %aref_vt_buf0[%{{.*}}] : tensor<128x128xf8E4M3FN, #layout.transpose_copy<warps = [1, 4], interleave = 8>>
// CHECK:       nvgpu.wg.branch warps 4 to 12 "consumer" {
// CHECK:         %vt = nvgpu.smem.view %aref_vt_buf0[%{{.*}}] : {{.*}} -> tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [1, 0], interleave = 8>>
// CHECK-NEXT:    %v = tile.trans %vt [1, 0] : {{.*}} -> tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [0, 1], interleave = 8>>
// CHECK-NEXT:    %{{.*}}_frag = nvgpu.convert_layout %{{.*}} : tensor<128x128xf8E4M3FN, #layout.wgmma<warp_groups = 2>> -> tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>, interleave = 8>>
// CHECK:         nvgpu.wgmma.mma_async %{{.*}}_frag, %v, %{{.*}} : tensor<128x128xf8E4M3FN, #layout.operand_a<parent = #layout.wgmma<warp_groups = 2>, interleave = 8>>, tensor<128x128xf8E4M3FN, #layout.shared<swizzle = 128, order = [0, 1], interleave = 8>>
// Q and K (TMA-loaded, read by the QK^T dot) keep the natural order.
// CHECK-NOT:     #layout.shared<swizzle = 128, order = [1, 0]>, interleave

// PTX:         ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX:         stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-NOT:     shfl.sync.idx
// PTX:         wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
// PTX-NOT:     shfl.sync.idx

// NAT:         shfl.sync.idx.b32

// VT-NOT:      interleave

// BAD:         fp8-keys must be natural or interleaved, got 'fa3'
