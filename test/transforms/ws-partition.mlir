// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-partition | filecheck %s --check-prefix=GEMM
// RUN: ws-opt %shared/kernels/attention.mlir -p ws-partition | filecheck %s --check-prefix=ATTN
// RUN: ws-opt %S/../Inputs/kernels/batched_gemm.mlir -p ws-partition | filecheck %s --check-prefix=BATCH
// RUN: ws-opt %S/../Inputs/kernels/mean_gemm.mlir -p ws-partition | filecheck %s --check-prefix=MEAN
// RUN: ws-opt %S/../Inputs/kernels/no_loop.mlir -p ws-partition 2>&1 | filecheck %s --check-prefix=NOLOOP
// RUN: ws-opt %s -p ws-partition | filecheck %s

// GEMM (Tawa Fig. 2(b)): the TMA loads and their K offset are the producer's
// iteration statements; the dot and the whole epilogue are the consumer's; the
// M/N offsets feed both the loads and the epilogue, so they are duplicated.
// GEMM: func.func @matmul
// GEMM-SAME: ws.partitioned = "producer, consumer"
// GEMM: %o_am = arith.muli %pid_m, %Mt {ws.partition = array<i32: 0, 1>, ws.role = "iter"}
// GEMM: %k_tiles = arith.ceildivsi %K, %Kt {ws.partition = array<i32: 0, 1>
// GEMM: %acc0 = arith.constant {ws.partition = array<i32: 1>, ws.role = "tile"}
// GEMM: scf.for
// GEMM: %a = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// GEMM: %b = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// GEMM: %bt = tile.trans {{.*}} {ws.partition = array<i32: 1>, ws.role = "tile"}
// GEMM: %acc2 = tile.dot {{.*}} {ws.partition = array<i32: 1>, ws.role = "tile"}
// GEMM: %o_k2 = arith.addi %o_k, %Kt {ws.partition = array<i32: 0>, ws.role = "iter"}
// GEMM: ws.carried = [array<i32: 1>, array<i32: 0>]
// GEMM: tile.store {{.*}} {ws.partition = array<i32: 1>, ws.role = "tile"}

// Attention: Q is loaded once before the loop by the producer; K and V are both
// producer loads; the softmax statistics are consumer state.
// ATTN: %q = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// ATTN: %k = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// ATTN: %qk = tile.dot {{.*}} {ws.partition = array<i32: 1>, ws.role = "tile"}
// ATTN: %p = math.exp2 %qk_c {ws.partition = array<i32: 1>, ws.role = "tile"}
// ATTN: %v = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// ATTN: ws.carried = [array<i32: 1>, array<i32: 1>, array<i32: 1>, array<i32: 0>]
// ATTN: tile.desc_store {{.*}} {ws.partition = array<i32: 1>, ws.role = "tile"}

// Program ids recomputed inside the loop feed only the producer's addresses there;
// the epilogue recomputes its own.
// BATCH: scf.for
// BATCH: %pb = tile.program_id 2 : i32 {ws.partition = array<i32: 0>, ws.role = "iter"}
// BATCH: %arow = arith.addi {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// BATCH: ws.carried = [array<i32: 1>, array<i32: 0>]
// BATCH: tile.desc_store

// An iter_arg used by the loads and after the loop is carried by both partitions.
// MEAN: %scale = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// MEAN: %ok2 = arith.addi %ok, %c32 {ws.partition = array<i32: 0, 1>, ws.role = "iter"}
// MEAN: ws.carried = [array<i32: 1>, array<i32: 0, 1>]

// NOLOOP: no_loop.mlir:2:1: remark: ws-partition: @scale has no loop with a TMA load (tile.desc_load); it is left as it is, not warp-specialized
// NOLOOP-NOT: ws.partition

// A load whose address depends on a value loaded by another producer load: both
// stay in the producer; only the data tile reaches the consumer.
func.func @indirect(%i_desc: !tile.desc<tensor<1x16xi32>>, %x_desc: !tile.desc<tensor<16x16xf16>>,
                    %y_desc: !tile.desc<tensor<16x16xf32>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<16x16xf32>) : i32 {
    %idx = tile.desc_load %i_desc[%c0, %k] : !tile.desc<tensor<1x16xi32>> -> tensor<1x16xi32>
    %row = tile.reduce max %idx, 1 : tensor<1x16xi32> -> tensor<1xi32>
    %row1 = tile.reduce max %row, 0 : tensor<1xi32> -> i32
    %x = tile.desc_load %x_desc[%row1, %c0] : !tile.desc<tensor<16x16xf16>> -> tensor<16x16xf16>
    %d = tile.dot %x, %x, %acc : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.desc_store %y_desc[%c0, %c0], %r : !tile.desc<tensor<16x16xf32>>
  func.return
}
// CHECK: %idx = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// CHECK: %row1 = tile.reduce max {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// CHECK: %x = tile.desc_load {{.*}} {ws.partition = array<i32: 0>, ws.role = "iter"}
// CHECK: %d = tile.dot {{.*}} {ws.partition = array<i32: 1>, ws.role = "tile"}
