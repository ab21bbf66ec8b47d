// The integer casts on tiles with MLIR's semantics (stock xDSL 0.74 takes only scalars):
// extsi / extui widen, trunci narrows, index_cast goes to or from `index`, elementwise,
// e.g. Triton's block-pointer rewrite's `arith.extsi %range : tensor<64xi32> to tensor<64xi64>`.
// RUN: ws-opt %s | ws-opt | filecheck %s
// RUN: ws-opt %s --print-op-generic | ws-opt | filecheck %s

// CHECK-LABEL: func.func @int_casts(%i: tensor<64xi32>, %w: tensor<8x4xi64>, %m: tensor<64xi1>, %s: i32)
// CHECK-NEXT: %wide = arith.extsi %i : tensor<64xi32> to tensor<64xi64>
// CHECK-NEXT: %zext = arith.extui %m : tensor<64xi1> to tensor<64xi32>
// CHECK-NEXT: %narrow = arith.trunci %w : tensor<8x4xi64> to tensor<8x4xi32>
// CHECK-NEXT: %idx = arith.index_cast %i : tensor<64xi32> to tensor<64xindex>
// CHECK-NEXT: %back = arith.index_cast %idx : tensor<64xindex> to tensor<64xi64>
// CHECK-NEXT: %scalar = arith.extsi %s : i32 to i64
// CHECK-NEXT: %sidx = arith.index_cast %s : i32 to index
func.func @int_casts(%i: tensor<64xi32>, %w: tensor<8x4xi64>, %m: tensor<64xi1>, %s: i32) {
  %wide = arith.extsi %i : tensor<64xi32> to tensor<64xi64>
  %zext = arith.extui %m : tensor<64xi1> to tensor<64xi32>
  %narrow = arith.trunci %w : tensor<8x4xi64> to tensor<8x4xi32>
  %idx = arith.index_cast %i : tensor<64xi32> to tensor<64xindex>
  %back = arith.index_cast %idx : tensor<64xindex> to tensor<64xi64>
  %scalar = arith.extsi %s : i32 to i64
  %sidx = arith.index_cast %s : i32 to index
  func.return
}
