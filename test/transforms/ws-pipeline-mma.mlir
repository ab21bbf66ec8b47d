// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2}' | filecheck %s --check-prefix=P2
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=0}' | filecheck %s --check-prefix=P0
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2}' | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/../Inputs/kernels/dual_dot.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1}' | filecheck %s --check-prefix=DUAL
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=2}' 2>&1 | filecheck %s --check-prefix=TOODEEP
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma' | ws-opt --print-op-generic | ws-opt | filecheck %s --check-prefix=P2

// GEMM, P = 2: the dot is issued asynchronously, two iterations stay in flight,
// slot k-2 is released, and the last two slots are drained after the loop.
// P2: warp_group.partition 1 consumer
// P2: scf.for %[[K:.*]] = {{.*}} iter_args(%acc = %acc0)
// P2-NEXT: %[[A:.*]], %[[B:.*]] = aref.get %aref_a_b[%[[K]]]
// P2-NEXT: %bt = tile.trans %[[B]]
// P2-NEXT: %acc2 = mma.async_dot %[[A]], %bt, %acc
// P2-NEXT: %[[W:.*]] = mma.wait %acc2 {pending = 2} : tensor<128x256xf32>
// P2-NEXT: %lag = arith.constant 2 : i32
// P2-NEXT: %retired = arith.cmpi sge, %[[K]], %lag : i32
// P2-NEXT: %prev = arith.subi %[[K]], %lag : i32
// P2-NEXT: scf.if %retired {
// P2-NEXT: aref.consumed %aref_a_b[%prev]
// P2-NEXT: }
// P2-NEXT: scf.yield %[[W]]
// P2: %[[R:.*]] = mma.wait %res_1 {pending = 0}
// P2: %trips = arith.maxsi
// P2: %drain_from = arith.maxsi
// P2-NEXT: scf.for %j = %drain_from to %trips
// P2-NEXT: aref.consumed %aref_a_b[%j]
// P2: arith.truncf %[[R]]

// P = 0: no overlap, the slot is released right after the wait in the same iteration.
// P0: %acc2 = mma.async_dot
// P0-NEXT: %{{.*}} = mma.wait %acc2 {pending = 0}
// P0-NEXT: aref.consumed %aref_a_b
// P0-NOT: scf.if

// Attention's dots do not only accumulate (QK^T feeds the softmax): no overlap
// here; that is ws-pipeline-coarse's job.
// ATTN: %qk = mma.async_dot
// ATTN-NEXT: mma.wait %qk {pending = 0}
// ATTN: %acc_new = mma.async_dot
// ATTN-NEXT: mma.wait %acc_new {pending = 0}

// Two accumulating dots per iteration: the wait keeps 2 groups (1 iteration) in flight.
// DUAL: %g2 = mma.async_dot
// DUAL-NEXT: %u2 = mma.async_dot
// DUAL-NEXT: mma.wait %g2, %u2 {pending = 2}
// DUAL: mma.wait %{{.*}}, %{{.*}} {pending = 0}

// TOODEEP: error: ws-pipeline-mma: depth 2 must be smaller than the aref ring depth 2 (P dots in flight hold P+1 slots)

// One ring read at two positions per iteration (2k, 2k+1), both released: the
// dot is waited for at once (the lag is counted in iterations, not positions),
// each release stays where it was (it used to fail: "Cannot detach a toplevel operation").
// RUN: ws-opt %S/Inputs/pipeline-mma-two-positions.mlir -p 'ws-pipeline-mma{depth=1}' | filecheck %s --check-prefix=TWOPOS
// TWOPOS: %[[A:.*]], %{{.*}} = aref.get %aref_a_b[%q0]
// TWOPOS-NEXT: %{{.*}}, %[[B:.*]] = aref.get %aref_a_b[%q1]
// TWOPOS-NEXT: %bt = tile.trans %[[B]]
// TWOPOS-NEXT: %acc2 = mma.async_dot %[[A]], %bt, %acc
// TWOPOS-NEXT: mma.wait %acc2 {pending = 0}
// TWOPOS-NEXT: aref.consumed %aref_a_b[%q0]
// TWOPOS-NEXT: aref.consumed %aref_a_b[%q1]
// TWOPOS-NEXT: scf.yield
// TWOPOS-NOT: aref.consumed

// A loop ws-schedule keeps in one stage, with a dot beside its accumulating one (a fused MLP):
// the accumulation stays in flight across the back edge, retired by the next iteration's wait
// for the other dot (pending = 0), and its W2 slot is released one iteration late.
// RUN: ws-opt %S/../Inputs/kernels/scheduled/fused_mlp.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2}' | filecheck %s --check-prefix=MIXED
// MIXED: scf.for %{{.*}} iter_args(%acc = %zero)
// MIXED: %s = mma.async_dot
// MIXED-NEXT: %s_1 = mma.wait %s {pending = 0}
// MIXED-NEXT: aref.consumed %aref_w1[%j_1]
// MIXED: %acc2 = mma.async_dot %h16, %w2_1, %acc
// MIXED-NEXT: %acc2_1 = mma.wait %acc2 {pending = 1}
// MIXED: scf.if %retired {
// MIXED-NEXT: aref.consumed %aref_w2[%prev]
// MIXED: scf.yield %acc2_1
// MIXED: %r_2 = mma.wait %r_1 {pending = 0}
// MIXED: scf.for %{{.*}} = %drain_from to %trips
// MIXED-NEXT: aref.consumed %aref_w2
// The heuristic pipeline (no schedule) waits for both dots in their iteration (then ws-pipeline-coarse pipelines it).
// RUN: ws-opt %S/../Inputs/kernels/fused_mlp.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2}' | filecheck %s --check-prefix=UNSCHED
// UNSCHED: %acc2 = mma.async_dot
// UNSCHED-NEXT: %acc2_1 = mma.wait %acc2 {pending = 0}
// UNSCHED-NEXT: aref.consumed %aref_w2
