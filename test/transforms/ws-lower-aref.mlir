// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=3 mma-depth=2},ws-lower-aref' | filecheck %s
// RUN: ws-opt %S/../Inputs/kernels/computed_put.mlir -p ws-lower-aref | filecheck %s --check-prefix=GEN
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize,ws-lower-aref' | ws-opt | filecheck %s --check-prefix=RT

// A ring of depth 3 with payload (A 128x64, B 256x64): a buffer per payload tile, a
// FULL (1 arrival: the expect_tx) and an EMPTY (8 consumer warps) mbarrier per slot,
// initialized before the warp groups start.
// CHECK: %aref_a_b_buf0 = nvgpu.smem.alloc : memref<3x128x64xf16, 3 : i64>
// CHECK-NEXT: %aref_a_b_buf1 = nvgpu.smem.alloc : memref<3x256x64xf16, 3 : i64>
// CHECK-NEXT: %aref_a_b_full = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
// CHECK-NEXT: %aref_a_b_empty = nvgpu.mbarrier.create : !nvgpu.mbarriers<3>
// CHECK-COUNT-3: nvgpu.mbarrier.init %aref_a_b_full[%{{.*}}] count 1 : !nvgpu.mbarriers<3>
// CHECK: nvgpu.fence.mbarrier_init
// CHECK-NEXT: nvvm.barrier 0
// CHECK-NEXT: warp_group.region
// Producer: slot k mod 3, parity (k / 3) & 1; wait EMPTY with parity ^ 1, one
// expect_tx of 128*64*2 + 256*64*2 bytes, the two TMA copies complete on FULL.
// CHECK: warp_group.partition 0 producer
// CHECK: %slot = arith.remui %k, %[[D:.*]] : i32
// CHECK-NEXT: %[[PASS:.*]] = arith.divui %k, %[[D]] : i32
// CHECK-NEXT: %parity = arith.andi %[[PASS]], %{{.*}} : i32
// CHECK: %[[PP:.*]] = arith.xori %parity, %{{.*}} : i32
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity %aref_a_b_empty[%slot], %[[PP]] : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.mbarrier.arrive_expect_tx %aref_a_b_full[%slot] bytes 49152 : !nvgpu.mbarriers<3>
// CHECK-NEXT: nvgpu.tma.async_load %a_desc[%o_am, %o_k] -> %aref_a_b_buf0[%slot], %aref_a_b_full[%slot]
// CHECK-NEXT: nvgpu.tma.async_load %b_desc[%o_bn, %o_k] -> %aref_a_b_buf1[%slot], %aref_a_b_full[%slot]
// CHECK-NOT: tile.desc_load
// Consumer: get = wait FULL with the parity, the slot's tiles read in place.
// CHECK: warp_group.partition 1 consumer
// CHECK: nvgpu.mbarrier.try_wait.parity %aref_a_b_full[%[[S:.*]]], %[[P:.*]] : !nvgpu.mbarriers<3>
// CHECK-NEXT: %[[A:.*]] = nvgpu.smem.view %aref_a_b_buf0[%[[S]]] : memref<3x128x64xf16, 3 : i64>
// CHECK-NEXT: %[[B:.*]] = nvgpu.smem.view %aref_a_b_buf1[%[[S]]] : memref<3x256x64xf16, 3 : i64>
// CHECK: mma.async_dot %[[A]]
// consumed (of k-2, after the wait that retired its wgmma) = one EMPTY arrival per warp.
// CHECK: mma.wait %{{.*}} {pending = 2}
// CHECK: scf.if %retired {
// CHECK: nvgpu.mbarrier.arrive %aref_a_b_empty[%{{.*}}] per_warp : !nvgpu.mbarriers<3>
// CHECK: mma.wait %{{.*}} {pending = 0}
// CHECK: scf.for %j
// CHECK: nvgpu.mbarrier.arrive %aref_a_b_empty[%{{.*}}] per_warp : !nvgpu.mbarriers<3>
// CHECK-NOT: aref.

// A computed payload: stored by the producer's threads, fenced for the async proxy,
// published by every producer thread (FULL count 128); its readers may load it element
// by element, so every consumer thread releases its own loads (EMPTY count 128).
// GEN: nvgpu.mbarrier.init %r_full[%{{.*}}] count 128 : !nvgpu.mbarriers<2>
// GEN: nvgpu.mbarrier.init %r_empty[%{{.*}}] count 128 : !nvgpu.mbarriers<2>
// GEN: %y = arith.mulf %x, %two : tensor<64x64xf16>
// GEN: nvgpu.mbarrier.try_wait.parity %r_empty[%slot], %{{.*}} : !nvgpu.mbarriers<2>
// GEN-NEXT: nvgpu.smem.store %y, %r_buf0[%slot] : memref<2x64x64xf16, 3 : i64>
// GEN-NEXT: nvgpu.fence.proxy_async
// GEN-NEXT: nvgpu.mbarrier.arrive %r_full[%slot] per_thread : !nvgpu.mbarriers<2>
// GEN: nvgpu.mbarrier.arrive %r_empty[%{{.*}}] per_thread : !nvgpu.mbarriers<2>

// The lowered IR prints, re-parses and verifies.
// RT: nvgpu.tma.async_load

// A ring that cannot fit in shared memory is an error at the tile's load, before
// any IR is built (a 1 MiB slot used to become an arrive_expect_tx past its 2^20 limit).
// RUN: not ws-opt %S/Inputs/lower-aref-huge-slot.mlir -p 'ws-specialize,ws-lower-aref' 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not ws-opt %S/Inputs/lower-aref-huge-slot.mlir -p ws-hopper 2>&1 | filecheck %s --check-prefix=HUGE
// HUGE: {{.*}}lower-aref-huge-slot.mlir:9:5: error: ws-lower-aref: this tile's aref ring does not fit in shared memory: one slot (tensor<1024x512xf16>) holds 1048576 bytes, more than the 232448 bytes a block can have
// HUGE-NOT: arrive_expect_tx
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=8},ws-lower-aref' 2>&1 | filecheck %s --check-prefix=DEEP
// DEEP: gemm.mlir:{{[0-9]+}}:7: error: ws-lower-aref: this tile's aref ring does not fit in shared memory: 8 slots of tensor<128x64xf16>, tensor<256x64xf16> take 393216 bytes, more than the 232448 bytes a block can have (give ws-distribute a smaller depth; ws-hopper picks the deepest ring that fits)
