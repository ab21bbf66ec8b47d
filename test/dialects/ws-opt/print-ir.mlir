// MLIR's debugging flags: the IR before / after every pass and after a failing one,
// on stderr under MLIR's header, and a wall-time table per pass.
//
// RUN: ws-opt %s -p ws-partition,ws-distribute --mlir-print-ir-before-all --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=ALL
// ALL: // -----// IR Dump Before PartitionPass (ws-partition) //----- //
// ALL-NEXT: builtin.module {
// ALL-NOT: ws.partition
// ALL: // -----// IR Dump After PartitionPass (ws-partition) //----- //
// ALL: ws.partition
// ALL: // -----// IR Dump Before DistributePass (ws-distribute) //----- //
// ALL: // -----// IR Dump After DistributePass (ws-distribute) //----- //
// ALL: warp_group.region
//
// RUN: ws-opt %s -p ws-partition --mlir-print-ir-after-all --mlir-print-op-generic 2>&1 >/dev/null | filecheck %s --check-prefix=GENERIC
// GENERIC: // -----// IR Dump After PartitionPass (ws-partition) //----- //
// GENERIC-NEXT: "builtin.module"() ({
//
// A failing pass (here a bad option value it checks itself) prints the IR it left,
// then the error; without the flag only the error.
// RUN: not ws-opt %s -p 'ws-partition,ws-distribute{depth=0}' --mlir-print-ir-after-failure 2>&1 | filecheck %s --check-prefix=FAIL
// FAIL-NOT: IR Dump After PartitionPass
// FAIL: // -----// IR Dump After DistributePass Failed (ws-distribute) //----- //
// FAIL-NEXT: builtin.module {
// FAIL: ws-opt: error: ws-distribute: depth must be >= 1, got 0
// RUN: not ws-opt %s -p 'ws-partition,ws-distribute{depth=0}' 2>&1 | filecheck %s --check-prefix=NODUMP
// NODUMP-NOT: IR Dump
//
// --mlir-timing: one row per pass, in pipeline order, between parsing and output.
// RUN: ws-opt %s -p ws-partition,ws-distribute --mlir-timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIME
// TIME: ... Execution time report ...
// TIME: Total Execution Time: {{[0-9.]+}} seconds
// TIME: ----Wall Time----  ----Name----
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Parser
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  ws-partition
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Verifier
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  ws-distribute
// TIME-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Output
// TIME-NEXT: {{[0-9.]+}} (100.0%)  Total

func.func @k(%d: !tile.desc<tensor<64x64xf16>>, %out: !tile.desc<tensor<64x64xf16>>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf16>) : i32 {
    %t = tile.desc_load %d[%c0, %c0] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %s = arith.addf %acc, %t : tensor<64x64xf16>
    scf.yield %s : tensor<64x64xf16>
  }
  tile.desc_store %out[%c0, %c0], %r : !tile.desc<tensor<64x64xf16>>, tensor<64x64xf16>
  func.return
}
