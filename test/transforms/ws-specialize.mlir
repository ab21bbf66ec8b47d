// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-specialize | filecheck %s
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=4 mma-depth=1 persistent=true programs=66}' | filecheck %s --check-prefix=OPTS
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=2 mma-depth=2}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-sched''ule{arch=h100},ws-specialize' | filecheck %s --check-prefix=TEAM
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-sched''ule{arch=h100},ws-specialize{cooperative=2}' | filecheck %s --check-prefix=SPLIT

// Defaults: D = 3, P = 2, not persistent.
// CHECK: aref.create : !aref.ring<tensor<128x64xf16>, tensor<256x64xf16>, depth = 3>
// CHECK: warp_group.partition 0 producer warps 4 regs 40
// CHECK: warp_group.partition 1 consumer warps 8 regs 232
// CHECK: mma.async_dot
// CHECK-NEXT: mma.wait %{{.*}} {pending = 2}
// CHECK-NOT: ws_grid_x

// OPTS: ws.persistent = {programs = 66 : i32}
// OPTS: depth = 4
// OPTS: mma.wait %{{.*}} {pending = 1}

// BAD: error: ws-specialize: mma-depth (2) must be smaller than depth (2)

// ws-schedule split the 128x256 accumulator over a lockstep team of two warp groups
// (ws.schedule cooperative = 2, no ping-pong): ws-specialize keeps the team one
// partition of 8 warps (the wgmma layout splits the rows; as two branches ptxas
// serialized their wgmmas). cooperative=2 still asks for two branches.
// TEAM: %aref_a_b = aref.create : !aref.ring
// TEAM: warp_group.partition 1 consumer warps 8
// TEAM: mma.async_dot {{.*}} -> tensor<128x256xf32>
// TEAM-NOT: warp_group.partition 2
// SPLIT: aref.create consumers = 2
// SPLIT: warp_group.partition 1 consumer0 warps 4
// SPLIT: mma.async_dot {{.*}} -> tensor<64x256xf32>
// SPLIT: warp_group.partition 2 consumer1 warps 4
