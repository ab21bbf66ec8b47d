// M-contiguous A (wgmma's transpose-A bit): the weight-gradient GEMM dW = X^T dY reads
// X^T as tile.trans of X's KxM slot; ws-lower-mma keeps it as the wgmma's A (no copy), and
// the emitter reads it through an MN-major descriptor with imm-trans-a = 1.
//
// RUN: ws-opt %S/../../examples/kernels/gemm_weight_grad.mlir -p ws-hopper{auto=false} | filecheck %s
// RUN: ws-opt %S/../../examples/kernels/gemm_weight_grad.mlir -p 'ws-hopper{auto=false cooperative=2}' | filecheck %s --check-prefix=COOP
// RUN: ws-opt %S/../../examples/kernels/gemm_weight_grad.mlir -p ws-hopper{auto=false} -t llvm 2>/dev/null | filecheck %s --check-prefix=LLVM
// RUN: ws-opt %S/../../examples/kernels/gemm_weight_grad_bf16.mlir -p ws-hopper{auto=false} -t llvm 2>/dev/null | filecheck %s --check-prefix=BF16
// RUN: ws-opt %S/../../examples/kernels/gemm_weight_grad.mlir -p 'ws-hopper{auto=false cooperative=2}' -t llvm 2>/dev/null | filecheck %s --check-prefix=COOPLL

// The slot holds X's 64x128 tile row-major (M contiguous); its transpose is the A operand.
// CHECK:      %x = nvgpu.smem.view %{{.*}} : memref<{{[0-9]+}}x64x128xf16, 3 : i64> -> tensor<64x128xf16, #layout.shared<swizzle = 128, order = [1, 0]>>
// CHECK:      %dy = nvgpu.smem.view
// CHECK-NEXT: %xt = tile.trans %x [1, 0] : {{.*}} -> tensor<128x64xf16, #layout.shared<swizzle = 128, order = [0, 1]>>
// CHECK-NEXT: nvgpu.wgmma.fence
// CHECK-NEXT: %acc2 = nvgpu.wgmma.mma_async %xt, %dy, %acc : tensor<128x64xf16, #layout.shared<swizzle = 128, order = [0, 1]>>, tensor<64x256xf16, #layout.shared<swizzle = 128, order = [1, 0]>> -> tensor<128x256xf32, #layout.wgmma<warp_groups = 2>>

// Cooperative: each group's rows of M are a column slice (one 128-byte column block) of the slot.
// COOP:      %x_g0 = warp_group.share %x, 0 of 2 along 1 : {{.*}} -> tensor<64x64xf16, #layout.shared<swizzle = 128, order = [1, 0]>>
// COOP-NEXT: %xt = tile.trans %x_g0 [1, 0]
// COOP:      nvgpu.wgmma.mma_async %xt, %dy, %acc : tensor<64x64xf16, #layout.shared<swizzle = 128, order = [0, 1]>>
// COOP:      %x_g1 = warp_group.share %x_1, 1 of 2 along 1

// Descriptors: A and B are both MN-major 128B-swizzled tiles with 64 K rows: leading offset =
// the column-block stride 64 x 128 B = 8192 (bits 16-29: 512), stride offset = 8 rows of
// 128 B = 1024 (bits 32-45: 64), swizzle code 1 (bit 62): 0x4000004000000000 | 512 << 16.
// A warp group's 64 rows of M start at its column block (rows / 64 x 8192).
// LLVM:      %[[BD:desc[0-9]+]] = or i64 %{{.*}}, 4611686293338849280
// LLVM:      %[[WG:v[0-9]+]] = lshr i32 %{{.*}}, 7
// LLVM-NEXT: %[[R:v[0-9]+]] = mul i32 %[[WG]], 64
// LLVM-NEXT: %[[R2:v[0-9]+]] = add i32 %[[R]], 0
// LLVM-NEXT: %[[BLK:v[0-9]+]] = udiv i32 %[[R2]], 64
// LLVM-NEXT: %[[OFF:v[0-9]+]] = mul i32 %[[BLK]], 8192
// LLVM:      %[[AD:desc[0-9]+]] = or i64 %{{.*}}, 4611686293338849280
// imm-scale-a, imm-scale-b, imm-trans-a = 1 (M-major A), imm-trans-b = 1 (N-major B)
// LLVM:      wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, $128, $129, p, 1, 1, 1, 1; }{{.*}}(i64 %[[AD]], i64 %[[BD]], i32 1,
// The next K step of 16 rows: 16 x 128 B = 2048 B = 128 in the descriptor's 16-byte units, added
// by an asm where it is used (LLVM keeps one descriptor per operand, not one per K step).
// LLVM:      asm sideeffect "add.s64 $0, $1, 128;", "=l,l"(i64 %[[AD]])
// LLVM-NOT:  f32.f16.f16 {{.*}} p, 1, 1, 0,

// BF16: {{.*}}.f32.bf16.bf16 {{.*}}, p, 1, 1, 1, 1; }

// COOPLL:     %[[SH:share[0-9]+]] = add i32 %{{.*}}, 8192
// COOPLL:     add i32 %[[SH]],
// COOPLL:     f32.f16.f16 {{.*}}, p, 1, 1, 1, 1; }
