// tile.atomic_add through ws-hopper down to PTX (-t ptx). ws-lower-layouts gives its pointers, value, mask and
// result the value's layout; the emitter adds each element once, from the thread that owns it,
// with relaxed gpu-scope atomics between two fence.acq_rel.gpu (Triton's acq_rel, gpu scope):
// `red` where the old values are not read, `atom` where they are (a row slice's shuffled from
// lane 4q to its quad), f32 / i32 (.s32) / f16 (.noftz.f16), a scalar from thread 0.
// RUN: ws-opt %S/Inputs/atomics.mlir --split-input-file -p ws-hopper{auto=false} | filecheck %s --check-prefix=IR
// RUN: ws-opt %S/Inputs/atomics.mlir --split-input-file -p ws-hopper{auto=false} -t ptx | filecheck %s --check-prefix=PTX
// RUN: ws-opt %S/Inputs/atomics.mlir --split-input-file -p ws-hopper{auto=false} -t llvm | filecheck %s --check-prefix=LL
// RUN: ws-opt %S/Inputs/atomics.mlir --split-input-file -p "ws-hopper{auto=false cooperative=2}" 2>&1 | filecheck %s --check-prefix=COOP
// RUN: not ws-opt %S/Inputs/atomics-refused.mlir --split-input-file -p ws-hopper{auto=false} -t ptx 2>&1 | filecheck %s --check-prefix=ERR
// Triton's split-K GEMM and split-N row sum (examples/triton/gemm_splitk.py):
// RUN: ws-opt %S/../Inputs/triton/gemm_splitk_f16_64x64x32_s3.ttir -p ws-hopper{auto=false} | filecheck %s --check-prefix=SPLITK-IR
// RUN: ws-opt %S/../Inputs/triton/gemm_splitk_f16_64x64x32_s3.ttir -p ws-hopper{auto=false} -t ptx | filecheck %s --check-prefix=SPLITK
// RUN: ws-opt %S/../Inputs/triton/gemm_splitk_f16_128x128x64_s4.ttir -p "ws-hopper{auto=false cooperative=2}" | filecheck %s --check-prefix=SPLITK-COOP
// RUN: ws-opt %S/../Inputs/triton/row_sum_splitn_f16_128x64_s4.ttir -p ws-hopper{auto=false} -t ptx | filecheck %s --check-prefix=ROWSUM

// IR-LABEL: func.func @old_values
// IR:       nvgpu.wg.branch warps 4 to 8 "consumer"
// IR:       %old = tile.atomic_add %cptrs, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #layout.wgmma<warp_groups = 1>>, tensor<64x64xf32, #layout.wgmma<warp_groups = 1>> -> tensor<64x64xf32, #layout.wgmma<warp_groups = 1>>
// IR-LABEL: func.func @int_and_half
// IR:       tile.atomic_add %iptrs, %ai, %in : tensor<64x64x!tile.ptr<i32>, #layout.wgmma<warp_groups = 1>>, tensor<64x64xi32, #layout.wgmma<warp_groups = 1>>
// IR:       tile.atomic_add %hptrs, %ah : tensor<64x64x!tile.ptr<f16>, #layout.wgmma<warp_groups = 1>>, tensor<64x64xf16, #layout.wgmma<warp_groups = 1>>
// IR-LABEL: func.func @row_sums
// IR:       %old = tile.atomic_add %rptrs, %sum : tensor<64x!tile.ptr<f32>, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
// IR:       tile.atomic_add %done, %{{.*}} : !tile.ptr<i32>, i32 -> i32
// IR-NOT:   tile.atomic_add
// IR-LABEL: func.func @row_sums_two_groups

// The old values are read: atom (0 where masked off), all 32 of a thread's elements between the fences.
// PTX-LABEL: .entry old_values(
// PTX-NOT:   red.
// PTX:       fence.acq_rel.gpu;
// PTX-COUNT-32: { mov.b32 %r{{[0-9]+}}, 0; atom.relaxed.gpu.global.add.f32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}}; }
// PTX-NEXT:  // end inline asm
// PTX-NEXT:  // begin inline asm
// PTX-NEXT:  fence.acq_rel.gpu;
// PTX-NOT:   atom.
// PTX-LABEL: .entry int_and_half(
// PTX:       fence.acq_rel.gpu;
// PTX-COUNT-32: @p red.relaxed.gpu.global.add.s32 [%rd{{[0-9]+}}], %r{{[0-9]+}}; }
// PTX:       fence.acq_rel.gpu;
// PTX:       fence.acq_rel.gpu;
// PTX-COUNT-32: { red.relaxed.gpu.global.add.noftz.f16 [%rd{{[0-9]+}}], %rs{{[0-9]+}}; }
// PTX:       fence.acq_rel.gpu;
// PTX-NOT:   atom.
// PTX-LABEL: .entry row_sums(
// A row slice: lane 4q adds its two rows (the quad's lanes hold copies); every lane of the quad gets
// the old values by shuffle from lane 4q. The scalar counter: thread 0 of the partition.
// LL-LABEL: define ptx_kernel void @row_sums(
// LL:       call void asm sideeffect "fence.acq_rel.gpu;"
// LL-NEXT:  [[Q:%v[0-9]+]] = and i32 [[LANE:%lane[0-9]+]], 3
// LL-NEXT:  [[OWNER:%v[0-9]+]] = icmp eq i32 [[Q]], 0
// LL:       [[M:%v[0-9]+]] = zext i1 [[OWNER]] to i32
// LL-NEXT:  call i32 asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $3, 0; mov.b32 $0, 0; @p atom.relaxed.gpu.global.add.f32 $0, [$1], $2; }", "=r,l,r,r"({{.*}}, i32 [[M]])
// LL:       [[SRC:%v[0-9]+]] = and i32 [[LANE]], 28
// LL:       call i32 asm sideeffect "shfl.sync.idx.b32 $0, $1, $2, 31, -1;", "=r,r,r"(i32 %v{{[0-9]+}}, i32 [[SRC]])
// LL:       atom.relaxed.gpu.global.add.f32
// LL:       shfl.sync.idx.b32
// LL-NEXT:  bitcast
// LL-NEXT:  call void asm sideeffect "fence.acq_rel.gpu;"
// LL:       call void asm sideeffect "fence.acq_rel.gpu;"
// LL-NEXT:  [[T0:%v[0-9]+]] = icmp eq i32 %tip{{[0-9]+}}, 0
// LL-NEXT:  [[TM:%v[0-9]+]] = zext i1 [[T0]] to i32
// LL-NEXT:  call void asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $2, 0; @p red.relaxed.gpu.global.add.s32 [$0], $1; }", "l,r,r"(ptr addrspace(1) %p4, i32 1, i32 [[TM]])
// LL-NEXT:  call void asm sideeffect "fence.acq_rel.gpu;"

// A tile the cooperative groups split is added by each group, its share; a scalar counter would
// be added once per group, so the partition stays one group.
// COOP:     atomics.mlir:{{.*}} remark: ws-cooperative: consumer partition 1 stays one group: a tile.atomic_add of a value the groups do not split would add it once per group
// COOP-LABEL: func.func @row_sums_two_groups
// COOP:     nvgpu.wg.branch warps 4 to 12 "consumer"
// COOP:     tile.atomic_add %rptrs, %sum : tensor<128x!tile.ptr<f32>, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 2>>>

// ERR: atomics-refused.mlir:21:3: error: the result of a scalar tile.atomic_add is read: one thread adds, and handing its result to the partition's other threads is not lowered (the tile form is)
// ERR: atomics-refused.mlir:61:3: error: tile.atomic_add of a tile in #layout.slice<dim = 0, parent = #layout.wgmma<warp_groups = 1>>: only the accumulator fragment and its row slices are lowered

// SPLITK-IR: nvgpu.wg.branch warps 4 to 8 "consumer"
// SPLITK-IR: tile.atomic_add %{{.*}} : tensor<64x64x!tile.ptr<f32>, #layout.wgmma<warp_groups = 1>>, tensor<64x64xf32, #layout.wgmma<warp_groups = 1>> -> tensor<64x64xf32, #layout.wgmma<warp_groups = 1>>
// SPLITK:    wgmma.mma_async
// SPLITK:    fence.acq_rel.gpu;
// SPLITK-COUNT-32: @p red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}}; }
// SPLITK:    fence.acq_rel.gpu;
// SPLITK-NOT: red.
// SPLITK-COOP: nvgpu.wg.branch warps 4 to 8 "consumer0"
// SPLITK-COOP: tile.atomic_add {{.*}} : tensor<64x128x!tile.ptr<f32>, #layout.wgmma<warp_groups = 1>>
// SPLITK-COOP: nvgpu.wg.branch warps 8 to 12 "consumer1"
// SPLITK-COOP: tile.atomic_add {{.*}} : tensor<64x128x!tile.ptr<f32>, #layout.wgmma<warp_groups = 1>>
// ROWSUM:    fence.acq_rel.gpu;
// ROWSUM-COUNT-4: @p red.relaxed.gpu.global.add.f32
// ROWSUM:    fence.acq_rel.gpu;
// ROWSUM-NOT: red.
