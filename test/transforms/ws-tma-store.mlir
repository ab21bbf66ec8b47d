// ws-tma-store: the bounds-masked pointer-tile store of the bundled GEMM becomes a TMA store of the
// same box, behind the flag the launch sets where TMA can take the pointer argument's view.
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-tma-store | filecheck %s
// CHECK: func.func @matmul({{.*}}, %stride_cm: i32, %c_ptr_tma: !tile.desc<tensor<128x256xf16>>, %c_ptr_tma_ok: i32)
// CHECK-SAME: ws.tma_stores = [{ptr = 2 : i32, rows = 3 : i32, cols = 4 : i32, stride = 6 : i32, desc = 7 : i32}]
// CHECK:      %[[Z:[0-9]+]] = arith.constant 0 : i32
// CHECK-NEXT: %tma = arith.cmpi ne, %c_ptr_tma_ok, %[[Z]] : i32
// CHECK-NEXT: scf.if %tma {
// CHECK-NEXT:   tile.desc_store %c_ptr_tma[%o_am, %o_bn], %c : !tile.desc<tensor<128x256xf16>>
// CHECK-NEXT: } else {
// CHECK-NEXT:   tile.store %ptrs, %c, %mask : tensor<128x256x!tile.ptr<f16>>
// CHECK-NEXT: }

// The docs' 64x64 example: operands of addi / muli in the other order are the same store.
// RUN: ws-opt %S/../../docs/examples/passes/pointer_store.mlir -p ws-tma-store | filecheck %s --check-prefix=DOCS
// DOCS: tile.desc_store %c_tma[%om, %on], %h : !tile.desc<tensor<64x64xf16>>

// Triton's tutorial matmul, imported as a launch with contiguous tensors specializes it (stride_cn = 1):
// `c_ptr + stride_cm * offs_cm[:, None] + offs_cn[None, :]` broadcasts a one-column pointer tile before
// adding the columns; the coordinates are the kernel's own pid_m * 64 and pid_n * 64.
// RUN: ws-opt %S/../Inputs/triton/gemm_pointer_f16_64x64x32_g2_unit.ttir -p ws-tma-store | filecheck %s --check-prefix=TUTORIAL
// TUTORIAL: ws.tma_stores = [{ptr = 2 : i32, rows = 3 : i32, cols = 4 : i32, stride = 8 : i32, desc = 9 : i32}]
// TUTORIAL: %offs_am = arith.muli %pid_m_{{[0-9]+}}, %c64_i32 : i32
// TUTORIAL: %offs_bn = arith.muli %pid_n, %c64_i32 : i32
// TUTORIAL: scf.if %tma {
// TUTORIAL-NEXT: tile.desc_store %c_ptr_tma[%offs_am, %offs_bn], %c : !tile.desc<tensor<64x64xf16>>
// With the column stride an argument the tile is not known to be row-major: it stays.
// RUN: ws-opt %S/../Inputs/triton/gemm_pointer_f16_64x64x32_g2.ttir -p ws-tma-store 2>&1 | filecheck %s --check-prefix=STRIDED
// STRIDED: remark: ws-tma-store: not a TMA store
// STRIDED-NOT: ws.tma_stores

// ws-hopper runs it on persistent kernels (tma-store=auto): the epilogue's TMA store overlaps the
// next tile; rings of depth 3 leave room for its staging.
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false persistent=true}' -t ptx 2>&1 | filecheck %s --check-prefix=PTX
// PTX: remark: ws-hopper: rings of depth 4 need {{[0-9]+}} bytes of shared memory, more than the 232448 a block can have; using depth 3
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// and the pointer store for launches TMA cannot take (element stores: no room left to stage them)
// PTX: st.global.b16
// One tile per program keeps the pointer store (tma-store=true asks for the TMA store there too).
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false}' 2>&1 | filecheck %s --check-prefix=PLAIN
// PLAIN-NOT: ws.tma_stores
// PLAIN-NOT: remark
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false tma-store=true}' 2>&1 | filecheck %s --check-prefix=FORCED
// FORCED: ws.tma_stores
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{auto=false tma-store=sometimes}' 2>&1 | filecheck %s --check-prefix=BADOPT
// BADOPT: error: ws-hopper: tma-store must be true, false or auto, got 'sometimes'

// A store that is not exactly c + (r0 + i) * S + (c0 + j) under (r0 + i < M) & (c0 + j < N) stays,
// and says why: here the rows' bound is r0 + i <= M (sle), which TMA's clipping does not express.
// RUN: sed -e 's/%mm = "arith.cmpi"(%offs_m, %Mv) <{predicate = 2 : i64}>/%mm = "arith.cmpi"(%offs_m, %Mv) <{predicate = 3 : i64}>/' %shared/kernels/gemm.mlir | ws-opt -p ws-tma-store 2>&1 | filecheck %s --check-prefix=NOMATCH
// NOMATCH: remark: ws-tma-store: not a TMA store: its pointers and mask are not c + (r0 + i) * S + (c0 + j) and (r0 + i < M) & (c0 + j < N) of kernel arguments c, S, M, N
// NOMATCH: remark: ws-tma-store: no pointer-tile store to turn into a TMA store
// NOMATCH-NOT: ws.tma_stores

// The contract is checked like any ws.* attribute.
// RUN: not ws-opt %s 2>&1 | filecheck %s --check-prefix=BADATTR
// BADATTR: error: 'func.func' ws.tma_stores: desc = 9 is past the kernel's 3 arguments
func.func @k(%p: !tile.ptr<f16>, %m: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32,
    ws.tma_stores = [{ptr = 0 : i32, rows = 1 : i32, cols = 2 : i32, stride = 2 : i32, desc = 9 : i32}]} {
  func.return
}
