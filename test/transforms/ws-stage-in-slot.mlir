// RUN: ws-opt %S/../../examples/kernels/flash_attention_bf16.mlir -p 'ws-specialize{depth=2 mma-depth=1},ws-stage-in-slot' 2>&1 | filecheck %s --check-prefix=ONE
// RUN: ws-opt %S/../../examples/kernels/flash_attention_bf16.mlir -p 'ws-specialize{depth=2 mma-depth=1 cooperative=2 pingpong=true},ws-stage-in-slot' 2>&1 | filecheck %s --check-prefix=TEAM
// RUN: ws-opt %S/../../examples/kernels/flash_attention_bf16.mlir -p 'ws-specialize{depth=2 mma-depth=1 cooperative=2 pingpong=true persistent=true},ws-stage-in-slot' 2>&1 | filecheck %s --check-prefix=PERSISTENT
// RUN: ws-opt %S/../Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-hopper{auto=false cooperative=2 pingpong=true}' 2>&1 | filecheck %s --check-prefix=HOPPER
// RUN: ws-opt %S/../../examples/kernels/flash_attention_bf16.mlir -p 'ws-hopper{auto=false cooperative=2 pingpong=true}' 2>&1 | filecheck %s --check-prefix=FITS
// RUN: ws-opt %S/../Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-hopper{auto=false cooperative=2 pingpong=true team-stores=split}' 2>&1 | filecheck %s --check-prefix=SPLIT
// RUN: ws-opt %S/../../examples/kernels/flash_attention_bf16.mlir -p 'ws-hopper{auto=false cooperative=2 pingpong=true team-stores=split}' 2>&1 | filecheck %s --check-prefix=SPLITFITS
// RUN: ws-opt %S/../../examples/kernels/gemm.mlir -p 'ws-specialize,ws-stage-in-slot' 2>&1 | filecheck %s --check-prefix=NONE

// One consumer: O is staged in the slot that brought Q; Q is released after the store
// has read the slot (the TMA store's wait), not right after the key loop.
// ONE: flash_attention_bf16.mlir:70:5: remark: ws-stage-in-slot: the TMA store stages its tensor<128x128xbf16> in the slot of ring %aref_q, released after the store has read it
// ONE: %aref_q = aref.create : !aref.ring<tensor<128x128xbf16>, depth = 1> {ws.store_staging = 0 : i32}
// ONE: warp_group.partition 1 consumer
// ONE: %[[Q:.*]] = aref.get %aref_q[%[[I:.*]]]
// ONE-NOT: aref.consumed %aref_q
// ONE: tile.desc_store %o_desc[{{.*}}], %o16 : !tile.desc<tensor<128x128xbf16>> {ws.store_staging = 0 : i32}
// ONE-NEXT: nvgpu.tma.store_wait
// ONE-NEXT: aref.consumed %aref_q[%[[I]]]

// A cooperative team: each group releases Q after writing its rows (its gather); group 0,
// which stores, after the store has read the slot.
// TEAM: warp_group.partition 1 consumer0
// TEAM: %q_g0 = warp_group.share %{{.*}}, 0 of 2 along 0
// TEAM-NOT: aref.consumed %aref_q
// TEAM: warp_group.gather %o16, 0 of 2 along 0
// TEAM-NEXT: tile.desc_store %o_desc[{{.*}}], %o16_all : !tile.desc<tensor<128x128xbf16>> {ws.store_staging = 0 : i32}
// TEAM-NEXT: nvgpu.tma.store_wait
// TEAM-NEXT: aref.consumed %aref_q
// TEAM: warp_group.partition 2 consumer1
// TEAM-NOT: aref.consumed %aref_q
// TEAM: warp_group.gather %o16_1, 1 of 2 along 0
// TEAM-NEXT: aref.consumed %aref_q

// Persistent: the next tile's Q is loaded into the slot only after this tile's O has left it.
// PERSISTENT: scf.for
// PERSISTENT: tile.desc_store {{.*}} {ws.store_staging = 0 : i32}
// PERSISTENT-NEXT: nvgpu.tma.store_wait
// PERSISTENT-NEXT: aref.consumed %aref_q

// ws-hopper stages O in Q's slot only where the rings it wants do not fit with a staging
// buffer of its own: 176-key tiles keep two slots of K and V.
// HOPPER: remark: ws-hopper: rings of depth 4 need 427152 bytes of shared memory, more than the 232448 a block can have; using depth 2
// HOPPER: remark: ws-stage-in-slot: the TMA store stages its tensor<128x128xbf16> in the slot of ring %aref_q
// HOPPER: %aref_q_buf0 = nvgpu.smem.alloc : memref<1x128x128xbf16, 3 : i64> {ws.store_staging = 0 : i32}
// HOPPER: %aref_k_buf0 = nvgpu.smem.alloc : memref<2x176x128xbf16, 3 : i64>
// HOPPER: tile.desc_store {{.*}} {ws.store_staging = 0 : i32}
// HOPPER-NEXT: nvgpu.tma.store_wait
// HOPPER: nvgpu.mbarrier.arrive %aref_q_empty
// FITS-NOT: ws-stage-in-slot
// FITS-NOT: ws.store_staging

// No ring of the stored tile's type: nothing staged, said once.
// NONE: gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: ws-stage-in-slot: no tile.desc_store has a released ring slot of its tile's type to stage in
// NONE-NOT: ws.store_staging

// team-stores=split where two slots per ring fit only with O staged in Q's slot: ws-hopper
// gathers the team's store (a staged store is group 0's) and says so; where two slots fit with
// the split stores' own staging (128-key attention), they stay split (SPLITFITS).
// SPLIT: remark: ws-hopper: rings of depth 4 need {{.*}}; using depth 2
// SPLIT: remark: ws-stage-in-slot: the TMA store stages its tensor<128x128xbf16> in the slot of ring %aref_q
// SPLIT: remark: ws-hopper: the team's TMA stores are gathered (not team-stores=split) to stage them in a ring's slot
// SPLIT: warp_group.gather
// SPLITFITS-NOT: gathered
// SPLITFITS-NOT: warp_group.gather
// SPLITFITS: tile.desc_store
