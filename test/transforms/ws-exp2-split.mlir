// ws-exp2-split: a share of each exp2 tile in the wgmma accumulator fragment (blocks of 8
// columns, spread evenly) is marked for the polynomial on the FMA pipe; row slices, tiles
// outside the fragment and tiles not yet laid out stay on the SFU. The emitter lowers the
// marked blocks to clamp, add.rm, two subs, the Horner FMAs, shl 23 and an integer add.
// RUN: ws-opt %s -p 'ws-exp2-split{fma-fraction=0.25}' 2>&1 | filecheck %s
// RUN: ws-opt %s -p 'ws-exp2-split{fma-fraction=0.5 degree=5}' 2>/dev/null | filecheck %s --check-prefix=HALF
// RUN: ws-opt %s -p 'ws-exp2-split{fma-fraction=0}' 2>/dev/null | filecheck %s --check-prefix=ZERO
// RUN: ws-opt %s -p ws-exp2-split 2>&1 | filecheck %s --check-prefix=MODEL
// RUN: ws-opt %S/../Inputs/kernels/exp2_gemm.mlir -p ws-exp2-split 2>&1 | filecheck %s --check-prefix=EARLY
// RUN: not ws-opt %s -p 'ws-exp2-split{degree=7}' 2>&1 | filecheck %s --check-prefix=DEGREE
// RUN: not ws-opt %s -p 'ws-exp2-split{fma-fraction=1.5}' 2>&1 | filecheck %s --check-prefix=FRACTION
// RUN: not ws-opt %s -p 'ws-exp2-split{arch=h1}' 2>&1 | filecheck %s --check-prefix=ARCH
// RUN: ws-opt %S/../Inputs/kernels/exp2_gemm.mlir -p 'ws-hopper{auto=false},ws-exp2-split{fma-fraction=0.5}' -t ptx 2>&1 | filecheck %s --check-prefix=PTX

// CHECK: remark: ws-exp2-split: 4 of 16 column blocks of 64x128 on the FMA pipe (degree 3, share 0.250 from fma-fraction)
// CHECK: %p = math.exp2 %x {ws.exp2_fma = {blocks = array<i32: 3, 7, 11, 15>, degree = 3 : i32}} : tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>
// CHECK-NEXT: %alpha = math.exp2 %r : tensor<64xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
// CHECK-NEXT: %plain = math.exp2 %y : tensor<64x128xf32>
// CHECK-NEXT: %narrow = math.exp2 %z : tensor<64x16xf32, #layout.wgmma<warp_groups = 1>>

// HALF: %p = math.exp2 %x {ws.exp2_fma = {blocks = array<i32: 1, 3, 5, 7, 9, 11, 13, 15>, degree = 5 : i32}}
// HALF: %narrow = math.exp2 %z {ws.exp2_fma = {blocks = array<i32: 1>, degree = 5 : i32}}

// ZERO-NOT: ws.exp2_fma

// The machine model (h100): the block's SFU cycles (the four exp2s: 512 + 4 + 512 + 64)
// against its ALU cycles (the mulf and the reduce: 64 + 64) and 10 operations per element;
// the narrow tile goes to the FMA pipe whole (share 1).
// MODEL: remark: ws-exp2-split: 13 of 16 column blocks of 64x128 on the FMA pipe (degree 3, share 0.837 from h100: SFU 1092 cycles in the block (512 this exp2), ALU 128; the polynomial costs 10 ALU operations per element)
// MODEL: remark: ws-exp2-split: 2 of 2 column blocks of 64x16 on the FMA pipe (degree 3, share 1.000
// MODEL: %p = math.exp2 %x {ws.exp2_fma = {blocks = array<i32: 1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14, 15>, degree = 3 : i32}}
// MODEL: %narrow = math.exp2 %z {ws.exp2_fma = {blocks = array<i32: 0, 1>, degree = 3 : i32}}

// Before the layouts nothing is in the fragment:
// EARLY: remark: ws-exp2-split: no math.exp2 of an f32 tile in the wgmma accumulator fragment (run it after the layouts: ws-hopper,ws-exp2-split); nothing to split
// EARLY-NOT: ws.exp2_fma

// DEGREE: ws-exp2-split: degree must be 3, 4 or 5, got 7
// FRACTION: ws-exp2-split: fma-fraction must be between 0 and 1, got 1.5
// ARCH: ws-exp2-split: unknown machine 'h1' (known: h100, b200)

// Blocks 1, 3, ..., 15 of the 128 columns: 2 row halves x 8 blocks x 4 registers = 64 per thread.
// PTX: max.f32 {{.*}}, 0fC2FE0000;
// PTX-NEXT: min.f32 {{.*}}, 0f43000000;
// PTX: add.rm.f32 [[BIG:%r[0-9]+]], {{.*}}, 0f4B400000;
// PTX: add.rn.f32 [[N:%r[0-9]+]], [[BIG]], 0fCB400000;
// PTX-NEXT: sub.rn.f32 [[F:%r[0-9]+]], {{%r[0-9]+}}, [[N]];
// PTX-NEXT: fma.rn.f32 [[P1:%r[0-9]+]], [[F]], 0f3D9DD120, 0f3E691E0F;
// PTX-NEXT: fma.rn.f32 [[P2:%r[0-9]+]], [[P1]], [[F]], 0f3F31F30C;
// PTX-NEXT: fma.rn.f32 [[P3:%r[0-9]+]], [[P2]], [[F]], 0f3F800000;
// PTX-NEXT: shl.b32 [[E:%r[0-9]+]], [[BIG]], 23;
// PTX-NEXT: add.s32 {{%r[0-9]+}}, [[E]], [[P3]];
// PTX: ex2.approx.ftz.f32

func.func @softmax_like(%x0: tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>,
                        %r: tensor<64xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>,
                        %y: tensor<64x128xf32>, %z: tensor<64x16xf32, #layout.wgmma<warp_groups = 1>>)
    -> (tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>, tensor<64xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>) {
  %x = arith.mulf %x0, %x0 : tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>
  %p = math.exp2 %x : tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>
  %alpha = math.exp2 %r : tensor<64xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
  %plain = math.exp2 %y : tensor<64x128xf32>
  %narrow = math.exp2 %z : tensor<64x16xf32, #layout.wgmma<warp_groups = 1>>
  %s = tile.reduce sum %p, 1 : tensor<64x128xf32, #layout.wgmma<warp_groups = 1>> -> tensor<64xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
  func.return %p, %s : tensor<64x128xf32, #layout.wgmma<warp_groups = 1>>, tensor<64xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
}
