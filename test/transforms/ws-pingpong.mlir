// ws-pingpong: the two cooperative groups of attention take turns issuing their MMAs
// (FlashAttention-3's ping-pong). Each run of MMA issues is bracketed by turn_wait /
// turn_pass; the slot gets of the run move in front of the turn; group 1 hands the
// first turn to group 0, group 0 takes the last one back.
// RUN: ws-opt %S/../../examples/kernels/flash_attention.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1},ws-pipeline-coarse,ws-cooperative{groups=2},ws-pingpong' | filecheck %s
// RUN: ws-opt %S/../../examples/kernels/flash_attention.mlir -p 'ws-specialize{depth=2 mma-depth=1 cooperative=2 pingpong=true}' | ws-opt --print-op-generic | ws-opt | filecheck %s
// RUN: ws-opt %S/../../examples/kernels/flash_attention.mlir -p 'ws-hopper{cooperative=2 pingpong=true}' 2>&1 | filecheck %s --check-prefix=LOWER
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{cooperative=2 pingpong=true}' | filecheck %s --check-prefix=GEMM
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize,ws-pingpong' 2>&1 | filecheck %s --check-prefix=NOTEAM
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{pingpong=true}' 2>&1 | filecheck %s --check-prefix=NOCOOP
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-pingpong' 2>&1 | filecheck %s --check-prefix=NOREGION
// A module without a tile kernel has nothing to order (found by the fuzzer: an unlocated error).
// RUN: sed 's/tile.kernel, //' %shared/kernels/gemm.mlir | ws-opt -p 'ws-hopper{cooperative=2 pingpong=true}' 2>&1 | filecheck %s --check-prefix=NOKERNEL

// CHECK: warp_group.partition 1 consumer0 warps 4
// Prologue: QK^T_0 alone.
// CHECK: scf.if
// CHECK: aref.get %aref_k
// CHECK: warp_group.turn_wait 0 of 2
// CHECK-NEXT: mma.async_dot %q_g0
// CHECK-NEXT: warp_group.turn_pass 0 of 2
// CHECK-NEXT: mma.wait
// Steady state: both slots are acquired before the turn; QK^T_j and P.V_{j-1} are issued in it.
// CHECK: scf.for
// CHECK: %[[K:.*]] = aref.get %aref_k
// CHECK: %[[V:.*]] = aref.get %aref_v
// CHECK-NEXT: warp_group.turn_wait 0 of 2
// CHECK-NEXT: mma.async_dot %q_g0
// CHECK-NEXT: mma.async_dot %{{.*}}, %[[V]]
// CHECK-NEXT: warp_group.turn_pass 0 of 2
// CHECK-NEXT: mma.wait %{{.*}} {pending = 1}
// Epilogue: P.V_{N-1}.
// CHECK: aref.get %aref_v
// CHECK-NEXT: warp_group.turn_wait 0 of 2
// CHECK-NEXT: mma.async_dot
// CHECK-NEXT: warp_group.turn_pass 0 of 2
// Group 0 takes back group 1's last turn at its end.
// CHECK: warp_group.gather
// CHECK: tile.desc_store
// CHECK-NEXT: warp_group.turn_wait 0 of 2
// CHECK-NEXT: }
// Group 1 starts by passing the turn to group 0.
// CHECK: warp_group.partition 2 consumer1 warps 4
// CHECK-NEXT: warp_group.turn_pass 1 of 2
// CHECK: warp_group.turn_wait 1 of 2
// CHECK-NEXT: mma.async_dot %q_g1
// CHECK-NEXT: warp_group.turn_pass 1 of 2
// CHECK-NOT: warp_group.turn_wait 0 of 2

// Lowered: group g waits on named barrier 4 + g (after the 3 partitions' own 1..3) and
// arrives at the other group's; each counts both groups' 256 threads.
// LOWER: nvgpu.wg.branch warps 4 to 8 "consumer0"
// LOWER: nvvm.barrier 4 threads 256
// LOWER-NEXT: nvgpu.wgmma.fence
// LOWER: nvvm.barrier_arrive 5 threads 256
// LOWER: nvgpu.wg.branch warps 8 to 12 "consumer1"
// LOWER-NEXT: nvgpu.setmaxnreg
// LOWER-NEXT: nvvm.barrier_arrive 4 threads 256
// LOWER: nvvm.barrier 5 threads 256

// The GEMM's K loop issues one MMA per iteration, bracketed alone.
// GEMM: warp_group.partition 1 consumer0
// GEMM: scf.for
// GEMM: warp_group.turn_wait 0 of 2
// GEMM-NEXT: mma.async_dot
// GEMM-NEXT: warp_group.turn_pass 0 of 2

// NOTEAM: remark: ws-pingpong: no cooperative team to order
// NOTEAM-NOT: turn_
// NOCOOP: error: ws-specialize: pingpong orders the groups of a cooperative team; it needs cooperative >= 2, got 1
// NOKERNEL-NOT: error
// NOKERNEL: func.func @matmul
// NOREGION: gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: error: ws-pingpong: no warp_group.region (run ws-specialize{cooperative=2} first)
