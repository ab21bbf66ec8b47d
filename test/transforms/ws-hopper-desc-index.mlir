// tile.desc_index through ws-hopper to LLVM IR (examples/kernels/grouped_gemm_descs.mlir, a
// grouped GEMM whose groups are separate tensors): each !tile.descs argument is a pointer to the
// descriptors the launch built (128 bytes each, in global memory); the group's descriptor is
// element g, and the producer's TMA loads of A_g and B_g and the consumer's TMA store of C_g take
// its address as they take a descriptor argument's. test_grouped_gemm.py interprets the kernel
// before and after and runs ptxas on it.
// RUN: ws-opt %S/../../examples/kernels/grouped_gemm_descs.mlir -p ws-hopper -t llvm 2>/dev/null | filecheck %s

// CHECK:      define ptx_kernel void @grouped_gemm_descs(ptr %p0, ptr %p1, ptr %p2, ptr addrspace(1) %p3, i32 %p4)
// CHECK:      %[[OFF:.*]] = mul i64 %{{.*}}, 128
// CHECK-NEXT: %[[AD:.*]] = getelementptr i8, ptr %p0, i64 %[[OFF]]
// CHECK:      %[[BOFF:.*]] = mul i64 %{{.*}}, 128
// CHECK-NEXT: %[[BD:.*]] = getelementptr i8, ptr %p1, i64 %[[BOFF]]
// CHECK:      %[[A64:.*]] = ptrtoint ptr %[[AD]] to i64
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes {{.*}}(i32 %{{.*}}, i32 %{{.*}}, i64 %[[A64]],
// CHECK:      %[[B64:.*]] = ptrtoint ptr %[[BD]] to i64
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes {{.*}}(i32 %{{.*}}, i32 %{{.*}}, i64 %[[B64]],
// CHECK:      %[[COFF:.*]] = mul i64 %{{.*}}, 128
// CHECK-NEXT: %[[CD:.*]] = getelementptr i8, ptr %p2, i64 %[[COFF]]
// CHECK:      %[[C64:.*]] = ptrtoint ptr %[[CD]] to i64
// CHECK:      cp.async.bulk.tensor.2d.global.shared::cta.bulk_group {{.*}}(i32 %{{.*}}, i64 %[[C64]],
