// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2},ws-persistent{programs=132 tile-group=0}' | filecheck %s
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-partition,ws-distribute{depth=2},ws-persistent' | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/../Inputs/kernels/no_loop.mlir -p 'ws-partition,ws-distribute,ws-persistent' 2>/dev/null | filecheck %s --check-prefix=PLAIN
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute,ws-persistent{programs=-1}' 2>&1 | filecheck %s --check-prefix=BAD

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
// BAD: error: ws-persistent: programs must be >= 1 (or 0: one per CTA the SMs hold), got -1

// tile-group=T: the tiles in bands of T x values (Triton's GROUP_M), x fastest within a band,
// the last band as wide as what is left of x; a tile's virtual ids replace tile.program_id.
// RUN: ws-opt %S/../Inputs/kernels/bias_gemm.mlir -p 'ws-partition,ws-distribute{depth=2},ws-persistent{programs=132 tile-group=8}' | filecheck %s --check-prefix=GROUP
// GROUP:      warp_group.partition 1 consumer
// GROUP:      scf.for %[[T:tile[_0-9]*]] = %program{{.*}} to %tiles{{.*}} step %programs
// GROUP-NEXT:   %[[G:tile_group[_0-9]*]] = arith.constant 8 : i32
// GROUP-NEXT:   %[[S:slice_tile[_0-9]*]] = arith.remsi %[[T]], %{{.*}} : i32
// GROUP-NEXT:   %[[W:band_tiles[_0-9]*]] = arith.muli %[[G]], %ws_grid_y : i32
// GROUP-NEXT:   %[[B:band[_0-9]*]] = arith.divsi %[[S]], %[[W]] : i32
// GROUP-NEXT:   %[[F:band_x[_0-9]*]] = arith.muli %[[B]], %[[G]] : i32
// GROUP-NEXT:   %[[L:x_left[_0-9]*]] = arith.subi %ws_grid_x, %[[F]] : i32
// GROUP-NEXT:   %[[Z:band_size[_0-9]*]] = arith.minsi %[[L]], %[[G]] : i32
// GROUP-NEXT:   %[[I:in_band[_0-9]*]] = arith.remsi %[[S]], %[[W]] : i32
// GROUP-NEXT:   %[[D:band_dx[_0-9]*]] = arith.remsi %[[I]], %[[Z]] : i32
// GROUP-NEXT:   %[[X:pid_x[_0-9]*]] = arith.addi %[[F]], %[[D]] : i32
// GROUP-NEXT:   %[[Y:pid_y[_0-9]*]] = arith.divsi %[[I]], %[[Z]] : i32
// GROUP-NOT:    tile.program_id
// GROUP:        arith.muli %[[X]]
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute,ws-persistent{tile-group=-2}' 2>&1 | filecheck %s --check-prefix=BADGROUP
// BADGROUP: error: ws-persistent: tile-group must be >= 0 (or -1: chosen per kernel), got -2
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{tile-group=8}' 2>&1 | filecheck %s --check-prefix=NOTPERSISTENT
// NOTPERSISTENT: error: ws-specialize: tile-group orders the tiles of a persistent kernel; it needs persistent=true

// The default (tile-group=-1) is the pass's choice: bands of 8 when some TMA load depends on the
// tile's x alone and another on its y alone (bias_gemm's A and B), said in a remark; attention
// (K and V depend on y alone, Q on both) keeps the serpentine order (ATTN above).
// RUN: ws-opt %S/../Inputs/kernels/bias_gemm.mlir -p 'ws-partition,ws-distribute{depth=2},ws-persistent' 2>&1 | filecheck %s --check-prefix=AUTO
// AUTO: bias_gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: ws-persistent: tiles in bands of 8 x values (some loads depend on the tile's x alone, others on its y alone: an L2-grouped order)
// AUTO: %tile_group = arith.constant 8 : i32
// AUTO-NOT: row_parity

// A 1-D grid the kernel decodes itself (gemm.mlir: pid_m = pid % num_pid_m, pid_n = pid / num_pid_m)
// is a num_pid_m-wide 2-D grid for the default order: bands over its full columns, the virtual
// id computed after W and handed to the user's decode; ids past the full columns keep their place.
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute{depth=2},ws-persistent' 2>&1 | filecheck %s --check-prefix=DECODED
// DECODED: gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: ws-persistent: tiles in bands of 8 x values (some loads depend on the tile's x alone, others on its y alone, x = pid % W and y = pid / W of the 1-D grid the kernel decodes: an L2-grouped order)
// DECODED:      warp_group.partition 0 producer
// DECODED:      scf.for %tile = %program to %tiles step %programs
// DECODED:        %num_pid_m = arith.ceildivsi %M, %Mt : i32
// DECODED-NEXT:   %tile_group = arith.constant 8 : i32
// DECODED:        %slice_tile = arith.remsi %tile, %ws_grid_x : i32
// DECODED-NEXT:   %decode_width = arith.maxsi %num_pid_m, %{{.*}} : i32
// DECODED-NEXT:   %full_columns = arith.divsi %ws_grid_x, %decode_width : i32
// DECODED-NEXT:   %full_tiles = arith.muli %full_columns, %decode_width : i32
// DECODED:        %pid_x = arith.addi %band_x, %band_dx : i32
// DECODED-NEXT:   %pid_y = arith.divsi %in_band, %band_size : i32
// DECODED-NEXT:   %[[YW:.*]] = arith.muli %pid_y, %decode_width : i32
// DECODED-NEXT:   %grouped_pid = arith.addi %pid_x, %[[YW]] : i32
// DECODED-NEXT:   %in_full_columns = arith.cmpi slt, %slice_tile, %full_tiles : i32
// DECODED-NEXT:   %pid = arith.select %in_full_columns, %grouped_pid, %slice_tile : i32
// DECODED-NEXT:   %pid_m = arith.remsi %pid, %num_pid_m : i32
// DECODED-NEXT:   %pid_n = arith.divsi %pid, %num_pid_m : i32
// DECODED-NOT:    tile.program_id 0
// DECODED:      warp_group.partition 1 consumer
// DECODED:        %pid_1 = arith.select %in_full_columns_1, %grouped_pid_1, %slice_tile_1 : i32
