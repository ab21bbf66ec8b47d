// Kernels with several tile loops: every loop that loads tiles is warp-specialized.
// RUN: ws-opt %S/../Inputs/kernels/loops/causal_attention_two_loops.mlir -p ws-partition | filecheck %s --check-prefix=PART
// RUN: ws-opt %S/../Inputs/kernels/loops/causal_attention_two_loops.mlir -p 'ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=CAUSAL
// RUN: ws-opt %S/../Inputs/kernels/loops/softmax_two_pass.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1}' | filecheck %s --check-prefix=SOFTMAX
// RUN: ws-opt %S/../Inputs/kernels/loops/persistent_gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-pipeline-mma{depth=2}' | filecheck %s --check-prefix=NESTED
// RUN: ws-opt %S/../Inputs/kernels/loops/persistent_gemm.mlir -p 'ws-specialize{persistent=true}' 2>&1 | filecheck %s --check-prefix=OWN

// Both K/V loops are tile loops: their loads are the producer's, and each carries its state.
// PART: scf.for %j = %c0 to %start_m
// PART: %k = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// PART: ws.carried = [array<i32: 1>, array<i32: 1>, array<i32: 1>, array<i32: 0>]
// PART: scf.for %j_d = %start_m to %n_tiles
// PART: %k_d = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// PART: ws.carried = [array<i32: 1>, array<i32: 1>, array<i32: 1>, array<i32: 0>]

// One K ring and one V ring serve both loops: the second loop's positions start where the
// first loop's end (its trip count), in the producer and the consumer alike.
// CAUSAL: %aref_q = aref.create : !aref.ring<tensor<128x128xf16>, depth = 1>
// CAUSAL-NEXT: %aref_k = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// CAUSAL-NEXT: %aref_v = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// CAUSAL-NEXT: warp_group.region
// CAUSAL: warp_group.partition 0 producer
// CAUSAL: scf.for %j = %c0 to %start_m
// CAUSAL: aref.put %aref_k[%j], %k
// CAUSAL: aref.put %aref_v[%j], %v
// CAUSAL: %[[T:trips.*]] = arith.maxsi
// CAUSAL: scf.for %j_d = %start_m to %n_tiles
// CAUSAL: %[[D:.*]] = arith.subi %j_d, %start_m
// CAUSAL-NEXT: %[[I:.*]] = arith.divui %[[D]], %c1
// CAUSAL-NEXT: %[[P:pos.*]] = arith.addi %[[T]], %[[I]]
// CAUSAL-NEXT: aref.put %aref_k[%[[P]]], %k_d
// CAUSAL: aref.put %aref_v[%[[P]]], %v_d
// CAUSAL: warp_group.partition 1 consumer
// CAUSAL-NOT: tile.desc_load
// CAUSAL: aref.get %aref_k[%{{.*}}]
// CAUSAL: %[[CT:trips.*]] = arith.maxsi
// CAUSAL: scf.for
// CAUSAL: %[[CP:pos.*]] = arith.addi %[[CT]], %{{.*}}
// CAUSAL-NEXT: %k_d{{.*}} = aref.get %aref_k[%[[CP]]]
// CAUSAL: aref.consumed %aref_k[%[[CP]]]
// CAUSAL: aref.consumed %aref_q
// CAUSAL: tile.desc_store

// A two-pass kernel: X's ring serves both passes (one shared-memory layout for x_desc).
// SOFTMAX: %aref_x = aref.create : !aref.ring<tensor<64x128xf16>, depth = 2>
// SOFTMAX-NOT: aref.create
// SOFTMAX: aref.put %aref_x[%j], %x
// SOFTMAX: aref.put %aref_x[%pos], %x2
// SOFTMAX: warp_group.partition 1 consumer
// SOFTMAX: %x2{{.*}} = aref.get %aref_x[%[[P:pos.*]]]
// SOFTMAX: aref.consumed %aref_x[%[[P]]]
// SOFTMAX: tile.desc_store

// The user's loop over tiles: both partitions run it around their K loop, carrying the ring
// position base from tile to tile; the MMA pipeline retires slots by the iteration number
// and drains the last ones at base + j.
// NESTED: warp_group.partition 0 producer
// NESTED: %[[B:ring_base.*]] = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%[[A:ring_base.*]] = %{{.*}}) -> (i32)
// NESTED: scf.for %k = %c0 to %k_tiles
// NESTED: %[[P:pos.*]] = arith.addi %[[A]], %k
// NESTED-NEXT: aref.put %aref_a_b[%[[P]]], %a, %b
// NESTED: %[[N:ring_base.*]] = arith.addi %[[A]], %trips
// NESTED-NEXT: scf.yield %[[N]] : i32
// NESTED: warp_group.partition 1 consumer
// NESTED: scf.for %tile{{.*}} iter_args(%[[CA:ring_base.*]] = %{{.*}}) -> (i32)
// NESTED: scf.for %[[K:.*]] = {{.*}} iter_args(%acc = %acc0)
// NESTED: %[[CP:pos.*]] = arith.addi %[[CA]], %[[K]]
// NESTED: mma.async_dot
// NESTED: %retired = arith.cmpi sge, %[[K]], %lag
// NESTED: aref.consumed %aref_a_b[%prev]
// NESTED: mma.wait
// NESTED: scf.for %j = %drain_from to %trips
// NESTED-NEXT: %[[DP:pos.*]] = arith.addi %[[CA]], %j
// NESTED-NEXT: aref.consumed %aref_a_b[%[[DP]]]
// NESTED: tile.desc_store
// NESTED: scf.yield

// OWN: remark: ws-persistent: the kernel loops over its tiles itself (this loop holds its K loop); it is left as it is, not made persistent again
// OWN-NOT: ws.persistent
