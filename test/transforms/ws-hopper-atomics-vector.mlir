// tile.atomic_add of an f32 accumulator fragment (result not read) through ws-hopper to PTX:
// a thread holds columns 2j and 2j + 1 of its rows, so where the pointers step one element per
// column and column 0's are 8-byte aligned (the base's and the row stride's tt.divisibility,
// the tile's first column a multiple of 2: wsdialects/lower/alignment.py) the emitter adds
// each pair with one red.global.add.v2.f32 (PTX 8.1); a masked pair where only one mask holds
// adds that element alone. Where the alignment is not proven the adds stay one per element.
// The fences (Triton's acq_rel) are the scalar form's. ptxas accepts all five kernels
// (test_reduce_store.py::test_vector_atomics_ptxas).
// RUN: ws-opt %S/Inputs/atomics-vector.mlir --split-input-file -p ws-hopper -t ptx | filecheck %s
// RUN: ws-opt %S/Inputs/atomics-vector.mlir --split-input-file -p ws-hopper -t llvm | filecheck %s --check-prefix=LL

// CHECK-LABEL: .entry aligned(
// CHECK:       fence.acq_rel.gpu;
// CHECK-COUNT-16: { .reg .pred p0, p1, pb; setp.ne.b32 p0, %r{{[0-9]+}}, 0; setp.ne.b32 p1, %r{{[0-9]+}}, 0; and.pred pb, p0, p1; xor.pred p0, p0, pb; xor.pred p1, p1, pb; @pb red.relaxed.gpu.global.add.v2.f32 [[[P:%rd[0-9]+]]], {%r{{[0-9]+}}, %r{{[0-9]+}}}; @p0 red.relaxed.gpu.global.add.f32 [[[P]]], %r{{[0-9]+}}; @p1 red.relaxed.gpu.global.add.f32 [[[P]]+4], %r{{[0-9]+}}; }
// CHECK:       fence.acq_rel.gpu;
// CHECK-NOT:   red.
// CHECK-LABEL: .entry aligned_unmasked(
// CHECK:       fence.acq_rel.gpu;
// CHECK-COUNT-16: red.relaxed.gpu.global.add.v2.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-NEXT:  // end inline asm
// CHECK:       fence.acq_rel.gpu;
// CHECK-NOT:   red.
// CHECK-LABEL: .entry unaligned_base(
// CHECK-NOT:   v2.f32
// CHECK-COUNT-32: @p red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}}; }
// CHECK-LABEL: .entry odd_stride(
// CHECK-NOT:   v2.f32
// CHECK-COUNT-32: @p red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}}; }
// CHECK-LABEL: .entry odd_column(
// CHECK-NOT:   v2.f32
// CHECK-COUNT-32: @p red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}}; }
// CHECK-NOT:   v2.f32

// The pair's values go as i32 bit patterns, its address is the first element's.
// LL-LABEL: define ptx_kernel void @aligned_unmasked(
// LL:       [[X0:%v[0-9]+]] = bitcast float %{{.*}} to i32
// LL-NEXT:  [[X1:%v[0-9]+]] = bitcast float %{{.*}} to i32
// LL-NEXT:  call void asm sideeffect "red.relaxed.gpu.global.add.v2.f32 [$0], {$1, $2};", "l,r,r"(ptr addrspace(1) %{{.*}}, i32 [[X0]], i32 [[X1]])
