// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention_bwd_bf16.mlir -p ws-partition | filecheck %s --check-prefix=PART
// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention_bwd_bf16.mlir -p 'ws-partition,ws-distribute{depth=1}' | filecheck %s --check-prefix=DIST
// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention_bwd_bf16.mlir -p ws-hopper -o %t.ir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s --check-prefix=HOPPER --input-file %t.ir
// RUN: ws-opt %t.ir -t ptx 2>/dev/null | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention_bwd_bf16.mlir -p 'ws-hopper{persistent=false}' -t llvm 2>/dev/null | filecheck %s --check-prefix=LLVM

// The solver's schedule of the attention backward (ws-schedule{arch=h100}, stored as IR): S^T, P^T
// and dV on warp group 0, dP^T, dS^T, dK and dQ^T on warp group 1, the TMA loads and dQ^T's TMA
// reduce-add on the variable-latency group 2. ws-partition used to tag the reduce-add (no compute
// group of its own) for the first compute partition without its addresses, and ws-distribute
// stopped ("'tile.desc_store' runs in partition 1 but uses a i32 that only partitions [0, 2]
// compute"); with that fixed the kernel needed 429 KB of shared memory. Now:
// - the reduce-add runs where dQ^T is computed (partition 2), its coordinates recomputed there;
// - each of dK and dV is stored by the partition that accumulates it (no ring carries the
//   128x128 f32 dV out of the loop);
// - P^T crosses as bf16 and is widened by its user (the schedule's extf on group 0 moves to 2);
// PART: ws.partitioned = "producer, consumer_w0, consumer_w1"
// PART: %pt_r = arith.extf %pt16 {{.*}}ws.partition = array<i32: 2>
// PART: tile.desc_store add %dqt_desc{{.*}}ws.partition = array<i32: 2>
// PART: tile.desc_store %dk_desc{{.*}}ws.partition = array<i32: 2>
// PART: tile.desc_store %dv_desc{{.*}}ws.partition = array<i32: 1>

// - a tile two partitions read travels through one ring that both get and release (Q, K, dO:
//   consumers = 2), loaded once by the producer.
// DIST:      %aref_q = aref.create consumers = 2 : !aref.ring<tensor<64x128xbf16>, depth = 1>
// DIST-NEXT: %aref_k = aref.create consumers = 2 : !aref.ring<tensor<128x128xbf16>, depth = 1>
// DIST-NEXT: %aref_lse_e = aref.create : !aref.ring<tensor<1x64xf32>, depth = 1>
// DIST-NEXT: %aref_do = aref.create consumers = 2 : !aref.ring<tensor<64x128xbf16>, depth = 1>
// DIST-NEXT: %aref_v = aref.create : !aref.ring<tensor<128x128xbf16>, depth = 1>
// DIST-NEXT: %aref_delta_e = aref.create : !aref.ring<tensor<1x64xf32>, depth = 1>
// DIST-NEXT: %aref_pt16 = aref.create : !aref.ring<tensor<128x64xbf16>, depth = 1>
// DIST-NEXT: warp_group.region
// DIST:      warp_group.partition 0 producer
// DIST:        tile.desc_load %k_desc
// DIST-NOT:    tile.desc_load %k_desc
// DIST:        tile.desc_load %q_desc
// DIST-NOT:    tile.desc_load %q_desc
// DIST-NOT:    tile.desc_load %k_desc
// DIST-NOT:    tile.desc_store
// DIST:      warp_group.partition 1 consumer_w0
// DIST:        aref.get %aref_k
// DIST:        scf.for
// DIST:          aref.get %aref_q
// DIST:          aref.consumed %aref_q
// DIST:          aref.put %aref_pt16
// DIST:          aref.consumed %aref_do
// DIST-NOT:  tile.desc_store add
// DIST:        tile.desc_store %dv_desc
// DIST-NOT:  tile.desc_store
// DIST:      warp_group.partition 2 consumer_w1
// DIST:        aref.get %aref_k
// DIST:        scf.for
// DIST:          aref.get %aref_q
// DIST:          %pt16_1 = aref.get %aref_pt16
// DIST:          arith.extf %pt16_1
// DIST:          tile.desc_store add %dqt_desc
// DIST:        } {ws.schedule
// DIST:        tile.desc_store %dk_desc

// - the partition's TMA stores (the reduce-add, peeled by ws-pipeline-mma, and dK's) take turns in
//   one staging buffer: at depth 1 the rings and staging take 216192 bytes, within the 232448 a block has.
// REMARK: remark: ws-hopper: rings of depth 2 need {{[0-9]+}} bytes of shared memory, more than the 232448 a block can have; using depth 1
// REMARK-NOT: error
// HOPPER: nvgpu.wg.branch warps 0 to 4 "producer"
// HOPPER: nvgpu.wg.branch warps 4 to 8 "consumer_w0"
// HOPPER: tile.desc_store %dv_desc
// HOPPER: nvgpu.wg.branch warps 8 to 12 "consumer_w1"
// HOPPER: tile.desc_store add %dqt_desc
// HOPPER: tile.desc_store add %dqt_desc
// HOPPER: tile.desc_store %dk_desc

// In the PTX, dQ^T is reduce-added by TMA (two column boxes per store, in the loop and in the peeled copy), and a store into
// the shared buffer waits until the TMA store before it has read it.
// PTX: .visible .entry flash_attention_bwd_bf16(
// PTX-COUNT-4: cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group
// PTX: cp.async.bulk.wait_group.read 0

// Not persistent (so that only the loop store waits for its own earlier reads), consumer_w1's three
// stores (the reduce-add in the loop, its peeled copy, dK after the loop) stage
// their tiles at one offset, each after the storing thread has waited for the reads of the TMA
// stores before it and the partition has met at its named barrier (after consumer_w0's dV store, the
// branch of threads 256 to 383).
// LLVM:      cp.async.bulk.tensor.3d.global.shared::cta.bulk_group
// LLVM:      icmp uge i32 %v1, 256
// LLVM-NEXT: icmp ult i32 %v1, 384
// LLVM:      cp.async.bulk.wait_group.read 0
// LLVM-NEXT: bar.sync 3, 128
// LLVM-NEXT: %stage{{[0-9]+}} = add i32 %smem{{[0-9]+}}, [[DQ:[0-9]+]]
// LLVM:      cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group
// LLVM:      cp.async.bulk.wait_group.read 0
// LLVM-NEXT: bar.sync 3, 128
// LLVM-NEXT: %stage{{[0-9]+}} = add i32 %smem{{[0-9]+}}, [[DQ]]
// LLVM:      cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group
// LLVM:      cp.async.bulk.wait_group.read 0
// LLVM-NEXT: bar.sync 3, 128
// LLVM-NEXT: %stage{{[0-9]+}} = add i32 %smem{{[0-9]+}}, [[DQ]]
// LLVM-NOT:  cp.reduce.async.bulk
// LLVM:      cp.async.bulk.tensor.3d.global.shared::cta.bulk_group
