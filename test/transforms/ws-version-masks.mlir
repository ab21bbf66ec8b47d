// ws-version-masks: each select on a mask of index tiles gets a whole-tile test (the
// tile's first and last index, a wrap-around check) and an scf.if; tiles the mask does not
// cut take the data operand at once, only boundary tiles run the select.
// RUN: ws-opt %S/Inputs/masks.mlir -p ws-version-masks | filecheck %s
// RUN: ws-opt %S/Inputs/masks.mlir -p ws-version-masks | ws-opt --print-op-generic | ws-opt -p ws-version-masks | filecheck %s --check-prefix=TWICE
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-version-masks 2>&1 | filecheck %s --check-prefix=NONE
// RUN: ws-opt %s -p ws-version-masks 2>&1 | filecheck %s --check-prefix=NOKERNEL
// RUN: ws-opt %S/../../examples/kernels/flash_attention_causal.mlir -p ws-hopper{auto=false} 2>/dev/null | filecheck %s --check-prefix=CAUSAL

// The key bound cols < L: the last column of the tile (on + 63) below L.
// CHECK: %in_nb = tile.broadcast
// CHECK-NEXT: %c63 = arith.constant 63 : i32
// CHECK-NEXT: %last = arith.addi %on, %c63 : i32
// CHECK-NEXT: %ordered = arith.cmpi sle, %on, %last : i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %last, %L : i32
// CHECK-NEXT: %whole_tile = arith.andi %ordered, %[[IN]] : i1
// CHECK-NEXT: %a = scf.if %whole_tile -> (tensor<64x64xf32>) {
// CHECK-NEXT:   scf.yield %x : tensor<64x64xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %a_{{[0-9]+}} = arith.select %in_nb, %x, %low
// CHECK-NEXT:   scf.yield %a_{{[0-9]+}} : tensor<64x64xf32>
// CHECK-NEXT: }
// Causal with an offset, and-ed with the key bound: the first row + diag at or past the
// last column, and the key bound.
// CHECK: %first = arith.addi %om, %diag : i32
// CHECK: arith.cmpi sge, %first, %last{{.*}} : i32
// CHECK: %b = scf.if
// CHECK-NEXT: scf.yield %a
// Rows 2 r - 1 >= L select the constant: the test is that no row is outside (mask all
// false), through muli and subi (2 om - 1 ... 2 om + 125).
// CHECK: %[[TWO:.*]] = arith.muli %om, %c2{{.*}} : i32
// CHECK-NEXT: %c_neg1 = arith.constant -1 : i32
// CHECK-NEXT: %first{{.*}} = arith.addi %[[TWO]], %c_neg1 : i32
// CHECK-NEXT: %c125 = arith.constant 125 : i32
// CHECK-NEXT: %last{{.*}} = arith.addi %[[TWO]], %c125 : i32
// CHECK: %ordered{{.*}} = arith.cmpi sle, %first{{.*}}, %last{{.*}} : i32
// CHECK-NEXT: arith.cmpi slt, %last{{.*}}, %L : i32
// CHECK: %c = scf.if
// CHECK-NEXT: scf.yield %b
// An unsigned compare and a mask from data stay per element.
// CHECK: %d = arith.select %ub, %c, %low
// CHECK: %e = arith.select %pos, %d, %zero
// CHECK: %f = scf.if
// CHECK: tile.desc_store

// A select that is already the slow path of a whole-tile test is left alone: a second run
// versions nothing again.
// TWICE-COUNT-1: arith.select %in_nb, %x, %low
// TWICE-NOT: arith.select %in_nb, %x, %low

// NONE: remark: ws-version-masks: no arith.select on a mask of index tiles
// NOKERNEL: warning: ws-version-masks: no tile.kernel function; nothing to do

// Causal attention under ws-hopper: the key bound and the causal mask of each consumer
// group are versioned after the layouts are chosen.
// CAUSAL: %whole_tile{{.*}} = arith.andi
// CAUSAL: %qk_m = scf.if %whole_tile{{.*}} -> (tensor<128x128xf32, #layout.wgmma<warp_groups = 2>>) {
// CAUSAL-NEXT: scf.yield %qk_raw{{.*}} : tensor<128x128xf32, #layout.wgmma<warp_groups = 2>>
// CAUSAL-NEXT: } else {
// CAUSAL-NEXT: %qk_m_{{[0-9]+}} = arith.select %causal

builtin.module {
  func.func @not_a_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
    func.return %x : tensor<4xf32>
  }
}
