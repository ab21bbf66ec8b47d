// ws-tma-load: the pointer GEMM's two loads (Triton's classic form, masked at M, N and K, other = 0)
// become TMA loads at (pid_m * 128, k * 64) and (k * 64, pid_n * 128); the pointer iter_args and the
// masks go; the contract records the views (A: M x K, row stride stride_am; B: K x N, stride_bk).
// RUN: ws-opt %S/../Inputs/kernels/pointer_gemm.mlir -p ws-tma-load 2>&1 | filecheck %s
// CHECK: pointer_gemm.mlir:81:5: remark: ws-tma-load: a TMA load of argument 0 (a)
// CHECK: remark: ws-tma-load: a TMA load of argument 1 (b)
// CHECK: func.func @pointer_gemm({{.*}}, %stride_cm: i32, %a_tma: !tile.desc<tensor<128x64xf16>>, %b_tma: !tile.desc<tensor<64x128xf16>>)
// CHECK-SAME: ws.tma_loads = [{ptr = 0 : i32, desc = 9 : i32, stride = {{\[}}[1 : i64, 6 : i32]], shape = {{\[}}{{\[}}[1 : i64, 3 : i32]], {{\[}}[1 : i64, 5 : i32]]]},
// CHECK-SAME: {ptr = 1 : i32, desc = 10 : i32, stride = {{\[}}[1 : i64, 7 : i32]], shape = {{\[}}{{\[}}[1 : i64, 5 : i32]], {{\[}}[1 : i64, 4 : i32]]]}]
// CHECK: %om = arith.muli %pid_m, %c128 : i32
// CHECK: %on = arith.muli %pid_n, %c128 : i32
// CHECK: scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT: %kk = arith.muli %k, %c64 : i32
// CHECK-NEXT: %av = tile.desc_load %a_tma[%om, %kk] : !tile.desc<tensor<128x64xf16>> -> tensor<128x64xf16>
// CHECK-NEXT: %bv = tile.desc_load %b_tma[%kk, %on] : !tile.desc<tensor<64x128xf16>> -> tensor<64x128xf16>
// CHECK-NEXT: tile.dot %av, %bv, %acc
// CHECK-NEXT: scf.yield %d : tensor<128x128xf32>
// CHECK: tile.store %c_ptrs, %cv, %c_mask

// Loads it leaves, each with its reason.
// RUN: ws-opt %S/Inputs/tma-load-left.mlir -p ws-tma-load 2>&1 | filecheck %s --check-prefix=LEFT
// LEFT: tma-load-left.mlir:29:5: remark: ws-tma-load: left as a pointer load: its mask is not a bounds test (cmpi predicate 1)
// LEFT: tma-load-left.mlir:30:5: remark: ws-tma-load: left as a pointer load: its innermost stride is not 1
// LEFT: tma-load-left.mlir:31:5: remark: ws-tma-load: left as a pointer load: its `other` is not 0
// LEFT: tma-load-left.mlir:32:5: remark: ws-tma-load: left as a pointer load: the kernel also writes through this argument
// LEFT: tma-load-left.mlir:3:1: remark: ws-tma-load: no pointer-tile load turned into a TMA load
// LEFT-NOT: desc_load
// LEFT-NOT: ws.tma_loads

// ws-specialize runs it first: the pointer GEMM is warp-specialized (a producer of TMA loads).
// RUN: ws-opt %S/../Inputs/kernels/pointer_gemm.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC-NOT: remark
// SPEC: aref.create
// SPEC: tile.desc_load %a_tma
// SPEC: tile.desc_load %b_tma

// A 1-D tile (pointer_loop.mlir) stays a pointer load (a !tile.desc box is 2-D or 3-D); in
// ws-specialize the remark says why the loop is not warp-specialized.
// RUN: ws-opt %S/../Inputs/kernels/pointer_loop.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=ONED
// ONED: pointer_loop.mlir:14:5: remark: ws-tma-load: left as a pointer load: a 1-D tile
// ONED: remark: ws-partition: @rowsum has no loop with a TMA load
