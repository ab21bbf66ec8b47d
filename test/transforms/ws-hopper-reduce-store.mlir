// A reducing TMA store (tile.desc_store add) in a GEMM's epilogue, split-K style
// (test/Inputs/kernels/splitk_reduce_gemm.mlir): ws-partition puts it in the consumer, ws-hopper
// keeps the kind through the warp groups and layouts, and the emitter stages the fragment as
// for a plain TMA store and issues `cp.reduce.async.bulk.tensor.2d ... .add.tile.bulk_group`,
// one per 128-byte column block of the staged f32 rows (four for 128 columns), one commit;
// with two consumer groups the gathered tile is reduced by group 0. ptxas accepts it
// (test/lower/test_ptxas.py).
// RUN: ws-opt %S/../Inputs/kernels/splitk_reduce_gemm.mlir -p ws-partition | filecheck %s --check-prefix=PART
// RUN: ws-opt %S/../Inputs/kernels/splitk_reduce_gemm.mlir -p ws-hopper{auto=false} | filecheck %s --check-prefix=IR
// RUN: ws-opt %S/../Inputs/kernels/splitk_reduce_gemm.mlir -p ws-hopper{auto=false} -t ptx | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/../Inputs/kernels/splitk_reduce_gemm.mlir -p "ws-hopper{auto=false cooperative=2}" -t llvm | filecheck %s --check-prefix=COOP
// RUN: ws-opt %S/../Inputs/kernels/splitk_reduce_gemm.mlir -p "ws-hopper{auto=false persistent=true}" -t ptx | filecheck %s --check-prefix=PERSIST
// Overlapping tiles reduce-added in f32, f16 and bf16 (the element type is the descriptor's: one
// instruction for all three; 128-byte rows of f16 / bf16 are one column block):
// RUN: ws-opt %S/../Inputs/kernels/overlap_reduce_gemm.mlir --split-input-file -p ws-hopper{auto=false} -t ptx | filecheck %s --check-prefix=OVERLAP

// PART:      tile.desc_store add %c_desc[%om, %on], %r : !tile.desc<tensor<128x128xf32>> {ws.partition = array<i32: 1>, ws.role = "tile"}

// IR:        nvgpu.wg.branch warps 4 to 12 "consumer"
// IR:        tile.desc_store add %c_desc[{{.*}}], %{{.*}} : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #layout.wgmma<warp_groups = 2>>
// IR-NOT:    tile.desc_store %

// PTX:       .version 8.1
// PTX:       fence.proxy.async.shared::cta;
// PTX:       bar.sync
// PTX-COUNT-4: @p cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}]; }
// PTX-NEXT:  // end inline asm
// PTX-NEXT:  // begin inline asm
// PTX-NEXT:  { .reg .pred p; setp.eq.u32 p, %r{{[0-9]+}}, 0; @p cp.async.bulk.commit_group; }
// PTX-NOT:   cp.async.bulk.tensor.2d.global.shared::cta

// COOP:      bar.sync 4, 256;
// COOP-COUNT-4: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// COOP-NEXT: cp.async.bulk.commit_group
// COOP:      bar.arrive 4, 256;
// COOP-NOT:  cp.reduce.async.bulk.tensor

// The persistent kernel reduces each tile it computes; before the next tile is staged the storing
// thread waits for the reduction to have read the staging buffer.
// PERSIST-COUNT-4: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PERSIST:   cp.async.bulk.commit_group
// PERSIST:   cp.async.bulk.wait_group.read 0;

// OVERLAP-LABEL: .entry overlap_f32(
// OVERLAP-COUNT-2: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// OVERLAP-NOT:   cp.reduce
// OVERLAP-LABEL: .entry overlap_f16(
// OVERLAP:       cvt.rn.f16x2.f32
// OVERLAP:       cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// OVERLAP-NOT:   cp.reduce
// OVERLAP-LABEL: .entry overlap_bf16(
// OVERLAP:       cvt.rn.bf16x2.f32
// OVERLAP:       cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// OVERLAP-NOT:   cp.reduce
