// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false}' -o %t.hopper.mlir
// RUN: filecheck %s --input-file %t.hopper.mlir
// RUN: filecheck %s --input-file %t.hopper.mlir --check-prefix=NOMMA
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=3 mma-depth=2},ws-lower-aref,ws-lower-warp-groups,ws-lower-mma' | filecheck %s --check-prefix=TAWA
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=2},ws-lower-aref,ws-lower-warp-groups,ws-lower-mma' | filecheck %s --check-prefix=SYNC
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false cooperative=2}' | filecheck %s --check-prefix=COOP
// RUN: ws-opt %S/../Inputs/kernels/fp8_gemm.mlir -p 'ws-hopper{auto=false}' | filecheck %s --check-prefix=FP8
// RUN: ws-opt %S/../Inputs/kernels/batched_gemm.mlir -p 'ws-hopper{auto=false}' | filecheck %s --check-prefix=BF16
// RUN: ws-opt %S/Inputs/lower-mma-ok.mlir -p ws-lower-mma | filecheck %s --check-prefix=OK
// The generic form round-trips: printed generically, re-parsed, printed again = the custom form.
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false}' --print-op-generic -o %t.generic.mlir
// RUN: filecheck %s --input-file %t.generic.mlir --check-prefix=GENERIC
// RUN: ws-opt %t.generic.mlir | filecheck %s
// Not warp specialized (no nvgpu.wg.branch): the dots are left as they are.
// RUN: ws-opt %shared/kernels/gemm.mlir > %t.plain.mlir
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-lower-mma > %t.lowered.mlir
// RUN: diff %t.plain.mlir %t.lowered.mlir

// ws-hopper (mma-depth 1): the consumer's async dot becomes fence / mma_async /
// commit_group, the wait that ws-pipeline-mma placed a wait_group with the same
// pending count; A and B are read where they are, in the ring's slots. (ws-hopper's
// last pass, ws-lower-layouts, then adds layout encodings to the tensor types: {{.*}}.)
// CHECK: nvgpu.wg.branch warps 4 to 12 "consumer" {
// CHECK: %[[A:[a-z0-9_]+]] = nvgpu.smem.view %aref_a_b_buf0[%{{.*}}] : memref<4x128x64xf16, 3 : i64>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = nvgpu.smem.view %aref_a_b_buf1[%{{.*}}] : memref<4x256x64xf16, 3 : i64>
// CHECK-NEXT: %[[BT:[a-z0-9_]+]] = tile.trans %[[B]] [1, 0] : tensor<256x64xf16{{.*}}> -> tensor<64x256xf16{{.*}}>
// CHECK-NEXT: nvgpu.wgmma.fence
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = nvgpu.wgmma.mma_async %[[A]], %[[BT]], %acc : tensor<128x64xf16{{.*}}>, tensor<64x256xf16{{.*}}> -> tensor<128x256xf32{{.*}}>
// CHECK-NEXT: nvgpu.wgmma.commit_group
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = nvgpu.wgmma.wait_group %[[D]] {pending = 1} : tensor<128x256xf32{{.*}}>
// CHECK: scf.yield %[[R]] : tensor<128x256xf32{{.*}}>
// CHECK: nvgpu.wgmma.wait_group %{{.*}} {pending = 0} : tensor<128x256xf32{{.*}}>
// No tile-level dot is left anywhere (wgmma.wait_group is not " mma.wait").
// NOMMA-NOT: {{ (tile\.dot|mma\.async_dot|mma\.wait) }}

// Tawa's depths (3, 2): two groups stay in flight.
// TAWA: nvgpu.wg.branch warps 4 to 12 "consumer" {
// TAWA: nvgpu.wgmma.fence
// TAWA-NEXT: %[[D:.*]] = nvgpu.wgmma.mma_async
// TAWA-NEXT: nvgpu.wgmma.commit_group
// TAWA-NEXT: nvgpu.wgmma.wait_group %[[D]] {pending = 2}
// TAWA: nvgpu.wgmma.wait_group %{{.*}} {pending = 0}
// TAWA-NOT: {{ (tile\.dot|mma\.async_dot|mma\.wait) }}

// Without ws-pipeline-mma the tile.dot waits for its own group at once, before the
// slot is released.
// SYNC: nvgpu.wgmma.fence
// SYNC-NEXT: %[[D:.*]] = nvgpu.wgmma.mma_async %a, %bt, %acc
// SYNC-NEXT: nvgpu.wgmma.commit_group
// SYNC-NEXT: %{{.*}} = nvgpu.wgmma.wait_group %[[D]] {pending = 0} : tensor<128x256xf32>
// SYNC: nvgpu.mbarrier.arrive %aref_a_b_empty
// SYNC-NOT: {{ (tile\.dot|mma\.async_dot|mma\.wait) }}

// Two cooperative consumer warp groups: each issues m64 wgmmas on its share of A's rows.
// COOP: nvgpu.wg.branch warps 4 to 8 "consumer0" {
// COOP: %[[A0:[a-z0-9_]+]] = warp_group.share %{{.*}}, 0 of 2 along 0 : tensor<128x64xf16{{.*}}> -> tensor<64x64xf16{{.*}}>
// COOP: nvgpu.wgmma.mma_async %[[A0]], %{{.*}} : tensor<64x64xf16{{.*}}>, tensor<64x256xf16{{.*}}> -> tensor<64x256xf32{{.*}}>
// COOP: nvgpu.wg.branch warps 8 to 12 "consumer1" {
// COOP: %[[A1:[a-z0-9_]+]] = warp_group.share %{{.*}}, 1 of 2 along 0 : tensor<128x64xf16{{.*}}> -> tensor<64x64xf16{{.*}}>
// COOP: nvgpu.wgmma.mma_async %[[A1]], %{{.*}} : tensor<64x64xf16{{.*}}>, tensor<64x256xf16{{.*}}> -> tensor<64x256xf32{{.*}}>

// fp8 (K step 32) and bf16 dots lower the same way.
// FP8: nvgpu.wgmma.fence
// FP8-NEXT: nvgpu.wgmma.mma_async %x, %yt, %{{.*}} : tensor<64x64xf8E4M3FN{{.*}}>, tensor<64x64xf8E4M3FN{{.*}}> -> tensor<64x64xf32{{.*}}>
// FP8-NEXT: nvgpu.wgmma.commit_group
// BF16: nvgpu.wgmma.mma_async %x, %yt, %{{.*}} : tensor<64x32xbf16{{.*}}>, tensor<32x64xbf16{{.*}}> -> tensor<64x64xf32{{.*}}>

// A hand-written branch: tile.dot and mma.async_dot + mma.wait; the dot outside any
// branch stays a tile.dot.
// OK: nvgpu.wg.branch warps 0 to 4 "consumer" {
// OK: nvgpu.wgmma.fence
// OK-NEXT: %d = nvgpu.wgmma.mma_async %a, %bt, %acc
// OK-NEXT: nvgpu.wgmma.commit_group
// OK-NEXT: %[[D1:.*]] = nvgpu.wgmma.wait_group %d {pending = 0}
// OK-NEXT: nvgpu.wgmma.fence
// OK-NEXT: %e = nvgpu.wgmma.mma_async %a, %bt, %[[D1]]
// OK-NEXT: nvgpu.wgmma.commit_group
// OK-NEXT: %r = nvgpu.wgmma.wait_group %e {pending = 0}
// OK-NOT: {{ (mma\.async_dot|mma\.wait) }}
// OK: tile.dot %a2, %b2, %c2

// GENERIC: "nvgpu.wgmma.fence"() : () -> ()
// GENERIC-NEXT: "nvgpu.wgmma.mma_async"(%{{.*}}) : (tensor<128x64xf16{{.*}}>, tensor<64x256xf16{{.*}}>, tensor<128x256xf32{{.*}}>) -> tensor<128x256xf32{{.*}}>
// GENERIC-NEXT: "nvgpu.wgmma.commit_group"() : () -> ()
// GENERIC-NEXT: "nvgpu.wgmma.wait_group"(%{{.*}}) <{pending = 1 : i32}>

// Invalid inputs (what wgmma cannot do: a located error at the dot): ws-lower-mma-invalid.mlir.

// Register A (f16) and the N-major B (a KxN slot) are wgmma operands too.
// RUN: ws-opt %S/Inputs/lower-mma-a-registers-ok.mlir -p ws-lower-mma | filecheck %s --check-prefix=REGA
// REGA: %a = arith.constant dense<1.000000e+00> : tensor<64x32xf16>
// REGA: nvgpu.wgmma.fence
// REGA-NEXT: %d = nvgpu.wgmma.mma_async %a, %bt, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// RUN: ws-opt %S/Inputs/lower-mma-b-n-major-ok.mlir -p ws-lower-mma | filecheck %s --check-prefix=NMAJ
// NMAJ: %b = nvgpu.smem.view
// NMAJ: nvgpu.wgmma.fence
// NMAJ-NEXT: %d = nvgpu.wgmma.mma_async %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>

// Attention (Tawa's coarse pipeline): QK^T reads Q and K^T from slots (K-major), P.V
// reads P from registers and V as an N-major slot; T_j and U_{j-1} are issued together
// and the wait for T_j leaves U_{j-1} in flight (pending = 1).
// RUN: ws-opt %shared/kernels/attention.mlir -p ws-hopper{auto=false} | filecheck %s --check-prefix=ATTN
// ATTN: scf.for %j_1
// ATTN: nvgpu.wgmma.fence
// ATTN-NEXT: %qk_2 = nvgpu.wgmma.mma_async %q, %kt_1, %zero_qk
// ATTN-NEXT: nvgpu.wgmma.commit_group
// ATTN: %v = nvgpu.smem.view
// ATTN: nvgpu.wgmma.fence
// ATTN-NEXT: %acc_new = nvgpu.wgmma.mma_async %p16_prev, %v, %acc_s : tensor<128x128xf16, #layout.wgmma<warp_groups = 2>>, tensor<128x128xf16, #layout.shared<swizzle = 128, order = [1, 0]>>
// ATTN-NEXT: nvgpu.wgmma.commit_group
// ATTN-NEXT: %qk_3 = nvgpu.wgmma.wait_group %qk_2 {pending = 1}
// ATTN: %acc_new_1 = nvgpu.wgmma.wait_group %acc_new {pending = 0}
