// RUN: ws-opt %S/../../examples/kernels/flash_attention.mlir -p 'ws-hopper{auto=false}' -t llvm 2>/dev/null | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/../../examples/kernels/flash_attention.mlir -p 'ws-hopper{auto=false}' -t ptx 2>/dev/null > %t.attn.ptx
// RUN: filecheck %s --check-prefix=ATTN-PTX < %t.attn.ptx
// RUN: filecheck %s --check-prefix=ATTN-ORDER < %t.attn.ptx
// (Split from ws-hopper.mlir so that lit runs the attention compiles beside the GEMM ones.)

// The inline asm results are identified struct types, defined once ahead of the kernel and
// named by each extractvalue (not a 64-element struct spelled out each time): QK^T's and P.V's
// accumulators (64 floats a thread) and the fence over P.V's with the packed P (32 words).
// ATTN: %asm.floatx64 = type {float, float, float,
// ATTN-NEXT: %asm.floatx64.i32x32 = type {float, float,
// ATTN-SAME: float, i32, i32,
// ATTN: @__ws_smem
// Attention (head dim 128, 3-D descriptors): every 128x128 f16 slot is two 128B-swizzled
// column blocks of 128 x 64, one 3-D TMA box each (the second 16 KiB and 64 columns on).
// ATTN: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes
// ATTN-NEXT: add i32 %slot{{[0-9]+}}, 16384
// ATTN-NEXT: add i32 {{.*}}, 64
// ATTN-NEXT: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes
// The steady state: QK^T from K-major descriptors (A and B in shared memory, no transpose),
// then P.V with P in registers (four packed f16x2 per k16 step) and V N-major (transpose-B
// = 1; leading offset 16384 >> 4 = the column-block stride, in 4611686293372403712);
// QK^T_j is waited for with P.V_{j-1} still in flight (wait_group 1).
// QK^T starts from a zero constant: its first k-step runs with scale-d = 0 on undefined
// accumulator inputs (no register zeroed per iteration), the next ones accumulate.
// ATTN: for_body
// ATTN: wgmma.fence.sync.aligned;
// ATTN: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, $64, $65, p, 1, 1, 0, 0; }{{.*}}i32 0, float undef
// ATTN-NEXT: extractvalue %asm.floatx64 %v{{[0-9]+}}, 0
// ATTN: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, $64, $65, p, 1, 1, 0, 0; }{{.*}}i32 1, float %
// ATTN: cvt.rn.f16x2.f32
// ATTN: shl i32 %{{.*}}, 16
// ATTN: or i32
// ATTN: wgmma.fence.sync.aligned;
// ATTN: or i64 %{{.*}}, 4611686293372403712
// ATTN: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {$64, $65, $66, $67}, $68, p, 1, 1, 1; }
// ATTN: wgmma.wait_group.sync.aligned 1;
// ATTN: ex2.approx.ftz.f32
// ATTN: wgmma.wait_group.sync.aligned 0;
// P goes to P.V's register A as the words cvt.rn.f16x2.f32 packed: no unpacking to 16-bit
// halves and repacking (the A registers are built with plain LLVM shifts that fold away).
// ATTN-PTX: cvt.rn.f16x2.f32
// ATTN-PTX-NOT: %rs
// ATTN-PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
// The emitter keeps the IR's order at a wait: the exponentials (between QK^T's wait and
// P.V's in the IR) run while P.V is in flight; P is packed after P.V's wait, so the packed
// words never overwrite registers the in-flight wgmma reads.
// ATTN-ORDER: ex2.approx.ftz.f32
// ATTN-ORDER: wgmma.wait_group.sync.aligned 0;
// ATTN-ORDER-NOT: ex2.approx.ftz.f32
// ATTN-ORDER: cvt.rn.f16x2.f32

// ws-schedule's attention (kept as IR in Inputs/kernels/scheduled): softmax on one warp
// group, the accumulator rescale and P.V on another; the row rescale `alpha` (1-D f32) goes
// through an aref slot that is a plain shared-memory array: written from the row slice by
// lane 4q of each quad, read back per element into the other group's row slice.
// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention_split.mlir -p ws-hopper{auto=false} 2>&1 | filecheck %s --check-prefix=SCHED
// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention_split.mlir -p ws-hopper{auto=false} -t llvm 2>&1 | filecheck %s --check-prefix=SCHEDLL
// SCHED: %aref_alpha_buf0 = nvgpu.smem.alloc : memref<{{[0-9]+}}x128xf32, 3 : i64>
// SCHED: nvgpu.smem.store %alpha, %aref_alpha_buf0[%{{.*}}] : tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
// SCHED: %[[A:.*]] = nvgpu.smem.view %aref_alpha_buf0[%{{.*}}] : memref<{{[0-9]+}}x128xf32, 3 : i64> -> tensor<128xf32, #layout.shared<swizzle = 0, order = [0]>>
// SCHED-NEXT: nvgpu.smem.load %[[A]] : tensor<128xf32, #layout.shared<swizzle = 0, order = [0]>> -> tensor<128xf32, #layout.slice<dim = 1, parent = #layout.wgmma<warp_groups = 1>>>
// SCHEDLL: and i32 %lane{{[0-9]*}}, 3
// SCHEDLL: @p st.shared.b32 [$1], $2;
// SCHEDLL: ld.shared.b32
