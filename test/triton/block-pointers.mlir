// Block pointers as Triton 3.4-3.8 print them (3.9 removed tl.make_block_ptr) import as
// pointer tiles: base + sum_d (offset_d + range_d) * stride_d, masked on the boundaryCheck dims,
// the offsets carried through the loop and advanced by tt.advance.
// RUN: ws-opt %s | filecheck %s

#loc = loc("bp.py":3:1)
module {
  tt.func public @rowsum(%A: !tt.ptr<f16> {tt.divisibility = 16 : i32} loc("A"(#loc)), %B: !tt.ptr<f32> loc("B"(#loc)), %M: i32 loc("M"(#loc)), %K: i32 loc("K"(#loc))) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32 loc(#loc1)
    %c1_i64 = arith.constant 1 : i64 loc(#loc1)
    %c32_i32 = arith.constant 32 : i32 loc(#loc1)
    %c16_i32 = arith.constant 16 : i32 loc(#loc1)
    %cst = arith.constant dense<0.000000e+00> : tensor<16x32xf32> loc(#loc1)
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %m = arith.extsi %M : i32 to i64 loc(#loc3)
    %k = arith.extsi %K : i32 to i64 loc(#loc3)
    %row = arith.muli %pid, %c16_i32 : i32 loc(#loc3)
    %bp = tt.make_tensor_ptr %A, [%m, %k], [%k, %c1_i64], [%row, %c0_i32] {order = array<i32: 1, 0>} : <tensor<16x32xf16>> loc(#loc3)
    %acc:2 = scf.for %i = %c0_i32 to %K step %c32_i32 iter_args(%p = %bp, %a = %cst) -> (!tt.ptr<tensor<16x32xf16>>, tensor<16x32xf32>)  : i32 {
      %t = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<16x32xf16>> loc(#loc4)
      %f = arith.extf %t : tensor<16x32xf16> to tensor<16x32xf32> loc(#loc5)
      %s = arith.addf %a, %f : tensor<16x32xf32> loc(#loc5)
      %n = tt.advance %p, [%c0_i32, %c32_i32] : <tensor<16x32xf16>> loc(#loc6)
      scf.yield %n, %s : !tt.ptr<tensor<16x32xf16>>, tensor<16x32xf32> loc(#loc1)
    } loc(#loc1)
    %c32_i64 = arith.constant 32 : i64 loc(#loc7)
    %out = tt.make_tensor_ptr %B, [%m, %c32_i64], [%c32_i64, %c1_i64], [%row, %c0_i32] {order = array<i32: 1, 0>} : <tensor<16x32xf32>> loc(#loc7)
    tt.store %out, %acc#1 {boundaryCheck = array<i32: 0>} : !tt.ptr<tensor<16x32xf32>> loc(#loc8)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc(unknown)
#loc2 = loc("bp.py":4:11)
#loc3 = loc("bp.py":5:12)
#loc4 = loc("a"("bp.py":8:13))
#loc5 = loc("acc"("bp.py":9:9))
#loc6 = loc("bp.py":10:16)
#loc7 = loc("bp.py":11:12)
#loc8 = loc("bp.py":12:5)

// CHECK:      func.func @rowsum(%A: !tile.ptr<f16> {tt.divisibility = 16 : i32}, %B: !tile.ptr<f32>, %M: i32, %K: i32)
// CHECK:        scf.for %i = %c0_i32 to %K step %c32_i32 iter_args(%{{.*}} = %A, %{{.*}} = %m, %{{.*}} = %k, %{{.*}} = %k, %{{.*}} = %c1_i64, %{{.*}} = %row, %{{.*}} = %c0_i32, %a = %cst) -> (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32, tensor<16x32xf32>)
// CHECK:          tile.make_range 0 to 16 : tensor<16xi32>
// CHECK:          arith.trunci {{.*}} : i64 to i32
// CHECK:          arith.cmpi sge
// CHECK:          arith.cmpi slt
// CHECK:          tile.addptr {{.*}} : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
// CHECK:          tile.load {{.*}} : tensor<16x32x!tile.ptr<f16>> -> tensor<16x32xf16>
// CHECK:          arith.addi {{.*}} : i32
// CHECK:          arith.addi {{.*}} : i32
// CHECK:          scf.yield
// CHECK:        tile.store {{.*}} : tensor<16x32x!tile.ptr<f32>>
// CHECK-NOT:  tt.
