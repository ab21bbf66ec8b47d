// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2},ws-persistent{programs=132}' | filecheck %s
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-partition,ws-distribute{depth=2},ws-persistent' | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/../Inputs/kernels/no_loop.mlir -p 'ws-partition,ws-distribute,ws-persistent' 2>/dev/null | filecheck %s --check-prefix=PLAIN
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute,ws-persistent{programs=0}' 2>&1 | filecheck %s --check-prefix=BAD

// The user's grid arrives in three trailing arguments; the contract is on the kernel.
// CHECK: func.func @matmul({{.*}}, %stride_cm: i32, %ws_grid_x: i32, %ws_grid_y: i32, %ws_grid_z: i32)
// CHECK-SAME: ws.persistent = {programs = 132 : i32}
// Each partition loops over the tiles: tile = program + i * programs, x fastest and
// serpentine (odd rows of tiles run x backwards).
// CHECK: warp_group.partition 0 producer
// CHECK-NEXT: %program = tile.program_id 0 : i32
// CHECK-NEXT: %programs = tile.num_programs 0 : i32
// CHECK: %tiles = arith.muli
// CHECK: scf.for %tile = %program to %tiles step %programs iter_args(%ring_base = %{{.*}}, %tile_count = %{{.*}}) -> (i32, i32)
// CHECK-NEXT: %col = arith.remsi %tile, %ws_grid_x
// CHECK-NEXT: %row = arith.divsi %tile, %ws_grid_x
// CHECK: %row_parity = arith.andi %row, %[[ONE:.*]] : i32
// CHECK: %col_back = arith.subi %{{.*}}, %col : i32
// CHECK-NEXT: %backwards = arith.cmpi eq, %row_parity, %[[ONE]] : i32
// CHECK-NEXT: %pid_x = arith.select %backwards, %col_back, %col : i32
// CHECK-NOT: tile.program_id
// CHECK: %[[P:.*]] = arith.addi %k, %ring_base
// CHECK-NEXT: aref.put %aref_a_b[%[[P]]]
// CHECK: %[[NEXT:.*]] = arith.addi %ring_base, %trips
// CHECK: scf.yield %[[NEXT]], %{{.*}} : i32, i32
// The consumer: positions shifted too (the lagged release and the drain as well),
// and a barrier between the drain and the epilogue.
// CHECK: warp_group.partition 1 consumer
// CHECK: scf.for %tile_1 =
// CHECK: aref.get %aref_a_b[%{{.*}}]
// CHECK: scf.if %retired {
// CHECK-NEXT: %[[Q:.*]] = arith.addi %prev, %ring_base_1
// CHECK-NEXT: aref.consumed %aref_a_b[%[[Q]]]
// CHECK: scf.for %j =
// CHECK-NEXT: %[[R:.*]] = arith.addi %j, %ring_base_1
// CHECK-NEXT: aref.consumed %aref_a_b[%[[R]]]
// CHECK: }
// CHECK-NEXT: warp_group.barrier
// CHECK-NEXT: arith.truncf

// One-shot rings (Q) advance once per tile.
// ATTN: aref.put %aref_q[%tile_count]
// ATTN: aref.get %aref_q[%tile_count_1]
// ATTN: aref.consumed %aref_q[%tile_count_1]

// A kernel that is not warp-specialized is left alone.
// PLAIN-NOT: ws.persistent
// BAD: error: ws-persistent: programs must be >= 1, got 0
