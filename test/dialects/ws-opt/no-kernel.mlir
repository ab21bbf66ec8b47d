// A module with no `tile.kernel` function: every pass would leave it as it is, so
// each warns (at the first function, the one probably meant) instead of exiting 0
// silently. Checked with --verify-diagnostics: the warning is expected at @k.
//
// RUN: ws-opt %s --verify-diagnostics -p ws-partition > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-distribute > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-pipeline-mma > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-pipeline-coarse > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-cooperative > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-pingpong > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-persistent > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-specialize > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-sched''ule > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-hopper > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-verify-sync > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-lower-aref > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-lower-warp-groups > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-lower-mma > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-lower-layouts > /dev/null
// RUN: ws-opt %s --verify-diagnostics -p ws-register-budget > /dev/null
//
// The exact message, and one warning per pass of a pipeline:
// RUN: ws-opt %s -p ws-partition,ws-distribute 2>&1 >/dev/null | filecheck %s --check-prefix=MSG
// MSG: no-kernel.mlir:[[#LINE:]]:1: warning: ws-partition did nothing: no function has the 'tile.kernel' attribute (mark the kernel: func.func @k(...) attributes {tile.kernel})
// MSG-NEXT: no-kernel.mlir:[[#LINE]]:1: warning: ws-distribute did nothing
//
// With a kernel, nothing is said (ws-partition tags the ops):
// RUN: sed 's/^func.func @k(%%n: i32) {/func.func @k(%%n: i32) attributes {tile.kernel} {/; /expected-warning/d' %s > %t.kernel.mlir
// RUN: ws-opt %t.kernel.mlir -p ws-partition 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: warning

// expected-warning@below {{did nothing: no function has the 'tile.kernel' attribute}}
func.func @k(%n: i32) {
  %p = tile.program_id 0 : i32
  %x = arith.addi %p, %n : i32
  func.return
}
