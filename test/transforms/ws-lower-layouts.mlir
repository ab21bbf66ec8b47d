// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize,ws-lower-aref,ws-lower-warp-groups,ws-lower-mma,ws-lower-layouts' | filecheck %s
// RUN: ws-opt %S/../Inputs/kernels/softmax_gemm.mlir -p 'ws-hopper{auto=false}' | filecheck %s --check-prefix=RED
// RUN: ws-opt %S/../Inputs/kernels/causal_attention.mlir -p 'ws-specialize,ws-lower-aref,ws-lower-warp-groups,ws-lower-layouts' | filecheck %s --check-prefix=TWIN
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false cooperative=2}' | filecheck %s --check-prefix=COOP
// RUN: ws-opt %S/../Inputs/kernels/mean_gemm.mlir -p 'ws-hopper{auto=false}' | filecheck %s --check-prefix=LOAD
// RUN: ws-opt %S/../Inputs/kernels/softmax_gemm.mlir -p 'ws-hopper{auto=false}' --print-op-generic | ws-opt | filecheck %s --check-prefix=RED
// RUN: ws-opt %S/../Inputs/kernels/softmax_gemm.mlir -p 'ws-hopper{auto=false},ws-lower-layouts' | filecheck %s --check-prefix=RED
// RUN: not ws-opt %S/Inputs/layout_conflict.mlir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=CONFLICT
// RUN: not ws-opt %S/Inputs/layout_fit.mlir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=FIT
// Without ws-stage-operands (which ws-hopper runs) a transposed register A is a layout conversion:
// RUN: not ws-opt %S/Inputs/layout_register_a.mlir -p 'ws-specialize,ws-lower-aref,ws-lower-warp-groups,ws-lower-mma,ws-lower-layouts' 2>&1 | filecheck %s --check-prefix=REGA
// RUN: ws-opt %S/Inputs/layout_register_a.mlir -p ws-hopper{auto=false} | filecheck %s --check-prefix=REGASTAGED
// RUN: ws-opt %shared/kernels/attention.mlir -p ws-hopper{auto=false} | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/Inputs/layout_relay_row.mlir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=RELAY

// The GEMM consumer (2 warp groups): aref slots are 128B-swizzled shared memory, B's
// transposition is the column-major view of its slot, the accumulator chain is the
// wgmma fragment of both warp groups; the epilogue's index vectors are slices of it
// (rows: dim 1 removed, columns: dim 0 removed) and its pointer tile is in the fragment.
// CHECK: nvgpu.wg.branch warps 4 to 12 "consumer"
// CHECK: %acc0 = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #layout.wgmma<warp_groups = 2>>
// CHECK: scf.for {{.*}} iter_args(%acc = %acc0) -> (tensor<128x256xf32, #layout.wgmma<warp_groups = 2>>)
// CHECK: %a = nvgpu.smem.view {{.*}} -> tensor<128x64xf16, #layout.shared<swizzle = 128, order = [1, 0]>>
// CHECK: %bt = tile.trans %b [1, 0] : {{.*}} -> tensor<64x256xf16, #layout.shared<swizzle = 128, order = [0, 1]>>
// CHECK: nvgpu.wgmma.mma_async %a, %bt, %acc : {{.*}} -> tensor<128x256xf32, #layout.wgmma<warp_groups = 2>>
// CHECK: %rm = tile.make_range 0 to 128 : tensor<128xi32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 2>>>
// CHECK: %rn = tile.make_range 0 to 256 : tensor<256xi32, #layout.slice<dim = 0, parent = #layout.wgmma<warp_groups = 2>>>
// CHECK: tile.expand_dims %row_off, 1 : {{.*}} -> tensor<128x1xi32, #layout.wgmma<warp_groups = 2>>
// CHECK: tile.store %ptrs, %c, %mask : tensor<128x256x!tile.ptr<f16>, #layout.wgmma<warp_groups = 2>>

// Reductions along the columns of the fragment give row slices; the row maxima are
// stored as a 1-D row slice. The printed IR (custom and generic) re-parses.
// RED: %mx = tile.reduce max %sm, 1 : tensor<128x128xf32, #layout.wgmma<warp_groups = 1>> -> tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
// RED: tile.expand_dims %mx, 1 : {{.*}} -> tensor<128x1xf32, #layout.wgmma<warp_groups = 1>>
// RED: %sum = tile.reduce sum %e, 1 : {{.*}} -> tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
// RED: tile.store %mp, %mx, %row_ok : tensor<128x!tile.ptr<f32>, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>

// Causal attention's index range is both a row and a column index of the mask: one
// copy per layout.
// TWIN: %rows = tile.make_range 0 to 128 : tensor<128xi32, #layout.slice<dim = 0, parent = #layout.wgmma<warp_groups = 2>>>
// TWIN-NEXT: %rows_1 = tile.make_range 0 to 128 : tensor<128xi32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 2>>>

// Cooperative groups (1 warp group each): a group's share of a slot stays in shared memory.
// COOP: warp_group.share %a, 0 of 2 along 0 : tensor<128x64xf16, #layout.shared<swizzle = 128, order = [1, 0]>> -> tensor<64x64xf16, #layout.shared<swizzle = 128, order = [1, 0]>>
// COOP: -> tensor<64x256xf32, #layout.wgmma<warp_groups = 1>>

// A slot tile read element by element (not by wgmma) is loaded into registers first.
// LOAD: %scale_r = nvgpu.smem.load %scale : tensor<64x64xf32, #layout.shared<swizzle = 128, order = [1, 0]>> -> tensor<64x64xf32, #layout.wgmma<warp_groups = 1>>
// LOAD: arith.mulf %{{.*}}, %scale_r : tensor<64x64xf32, #layout.wgmma<warp_groups = 1>>

// CONFLICT: layout_conflict.mlir:20:3: error: ws-lower-layouts: this tile (tensor<64x64xf32>) is needed in #layout.permute<order = [1, 0], parent = #layout.wgmma<warp_groups = 1>> here but is in #layout.wgmma<warp_groups = 1>; converting a tile between layouts is not supported
// FIT: layout_fit.mlir:21:3: error: ws-lower-layouts: a 64x4 tile does not fit the wgmma accumulator of 1 warp group(s)

// Register A: attention's P (truncated from the softmax, computed from the QK^T
// fragment) is the A operand of P.V in the accumulator fragment itself, which is
// wgmma's register-A fragment; V stays a row-major 128B-swizzled slot (N-major B),
// its 256-byte rows stored as two 128-byte column blocks.
// ATTN: nvgpu.wgmma.mma_async %p16_prev, %v, %acc_s : tensor<128x128xf16, #layout.wgmma<warp_groups = 2>>, tensor<128x128xf16, #layout.shared<swizzle = 128, order = [1, 0]>> -> tensor<128x128xf32, #layout.wgmma<warp_groups = 2>>
// ATTN: %p16_1 = arith.truncf %p_1 : tensor<128x128xf32, #layout.wgmma<warp_groups = 2>> to tensor<128x128xf16, #layout.wgmma<warp_groups = 2>>
// A register A that is the transposition of a fragment would need a conversion.
// REGA: layout_register_a.mlir:20:5: error: ws-lower-layouts: the A operand of this dot is a register tile in #layout.permute<order = [1, 0], parent = #layout.wgmma<warp_groups = 1>>; wgmma reads register A in the accumulator fragment #layout.wgmma<warp_groups = 1>
// ws-hopper stages it: stored as computed, read back transposed (M-contiguous) from shared memory.
// REGASTAGED:      nvgpu.smem.store %st_prev_t, %st_prev_stage
// REGASTAGED:      %st_prev_a = tile.trans %st_prev_s [1, 0]
// REGASTAGED-NEXT: nvgpu.wgmma.fence
// REGASTAGED-NEXT: nvgpu.wgmma.mma_async %st_prev_a, %v

// A row vector that a group only relays (ws-schedule put `rowmax_s` on the PV group:
// read from one slot, scaled by a splat, put into another) has no anchor; it takes the
// row slice of the group's accumulator fragment, the 1-D default.
// RELAY: "consumer_w1"
// RELAY: %rowmax_r = nvgpu.smem.load {{.*}} -> tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
// RELAY: %rowmax_s{{.*}} = arith.mulf %rowmax_r, %scale_v {{.*}} : tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
