// FP8 attention forward through ws-hopper to PTX (the bundled kernels): the scores round to
// e4m3 two at a time, P goes from the accumulator fragment to wgmma's 8-bit A fragment by
// quad shuffles and byte permutes, P·V is a register-A wgmma k32 on e4m3 (no transpose
// bits: fp8 reads both operands K-major), and V, N-contiguous as loaded, is copied
// transposed (#layout.transpose_copy: ldmatrix.trans along V's rows, two prmt per pair of
// registers with per-lane selectors, stmatrix along V^T's rows): with v-transpose=consumer, as here, into the consumers'
// buffer between two named barriers; by default by the producer into a ring of its own
// (ws-producer-transpose.mlir); V^T as input needs no copy.
//
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8.mlir -p 'ws-hopper{v-transpose=consumer fp8-keys=natural}' -t ptx 2>/dev/null | filecheck %s
// RUN: ws-opt %S/../../examples/kernels/flash_attention_fp8_vt.mlir -p ws-hopper -t ptx 2>/dev/null | filecheck %s --check-prefix=VT

// CHECK: .entry flash_attention_fp8(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: bar.sync 2, 256;
// CHECK-NOT: ld.shared.u8
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: prmt.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync 2, 256;
// CHECK: shfl.sync.idx.b32
// CHECK: prmt.b32 {{.*}}, 0x5410;
// CHECK: prmt.b32 {{.*}}, 0x7632;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;

// VT: .entry flash_attention_fp8_vt(
// VT-NOT: bar.sync 2, 256;
// VT: shfl.sync.idx.b32
// VT: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
