// RUN: ws-opt %S/../Inputs/kernels/regroup_gemm.mlir -p ws-hopper | filecheck %s
// RUN: ws-opt %S/../Inputs/kernels/regroup_gemm.mlir -p ws-hopper -t llvm -o %t.ll
// RUN: filecheck %s --input-file %t.ll --check-prefix=LL
// RUN: grep -c st.global.b32 %t.ll | filecheck %s --check-prefix=NST

// Regroupings that keep every element in its thread (ws-lower-layouts-regroup-invalid.mlir
// has the ones that do not). A reshape that adds a size-1 dim to a row vector un-slices
// its layout (and one that drops it slices it again); join pairs two accumulator
// fragments into #layout.pair, split takes the pair apart; the pointer tile of the
// interleaved store is placed in the pair layout, its index vectors in slices of it.
// CHECK: nvgpu.wg.branch warps 4 to 12 "consumer"
// CHECK: %col_ok2 = tile.reshape %{{.*}} : tensor<128xi1, #layout.slice<dim = 0, parent = #layout.wgmma<warp_groups = 2>>> -> tensor<1x128xi1, #layout.wgmma<warp_groups = 2>>
// CHECK: %mx2 = tile.reshape %mx : tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 2>>> -> tensor<128x1xf32, #layout.wgmma<warp_groups = 2>>
// CHECK: tile.join %sh, %e : tensor<128x128xf32, #layout.wgmma<warp_groups = 2>> -> tensor<128x128x2xf32, #layout.pair<parent = #layout.wgmma<warp_groups = 2>>>
// CHECK: %lo, %hi = tile.split %{{.*}} : tensor<128x128x2xf32, #layout.pair<parent = #layout.wgmma<warp_groups = 2>>> -> tensor<128x128xf32, #layout.wgmma<warp_groups = 2>>
// CHECK: %mxr = tile.reshape %mx2 : tensor<128x1xf32, #layout.wgmma<warp_groups = 2>> -> tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 2>>>
// CHECK: tile.reshape %h : tensor<2xi32, #layout.pair<parent = #layout.slice<dim = 0, parent = #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 2>>>>> -> tensor<1x1x2xi32, #layout.pair<parent = #layout.wgmma<warp_groups = 2>>>
// CHECK: tile.store %pp, %j2, %ok2 : tensor<128x128x2x!tile.ptr<f32>, #layout.pair<parent = #layout.wgmma<warp_groups = 2>>>

// The emitter lowers all of it to per-thread code: each consumer thread (2 warp groups)
// stores its 2 rows of the row maxima and, of the interleaved pair, 2 registers for each
// of its 64 accumulator registers (130 element stores).
// LL: define ptx_kernel void @regroup_gemm
// NST: 130
