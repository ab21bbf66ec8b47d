// tile.num_warps: whole warp groups (a multiple of 4), at most 28 before
// warp specialization (ws-distribute adds a producer warp group to a CTA of at
// most 32 warps), at most 32 after. A bad value is one located error at the
// func.func, whatever the pipeline, never an internal error and never an error
// on ops the compiler built.
//
// NOTB-NOT: {{Traceback|internal error}}

// RUN: sed 's/NUM_WARPS/0 : i32/' %S/Inputs/num-warps.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,ZERO
// ZERO: <stdin>:2:1: error: 'func.func' tile.num_warps must be a multiple of 4 (whole warp groups) from 4 to 28 (a CTA has at most 32 warps and ws-distribute adds a producer warp group), got 0
// ZERO-EMPTY:

// RUN: sed 's/NUM_WARPS/-4 : i32/' %S/Inputs/num-warps.mlir | not ws-opt -p ws-hopper 2>&1 | filecheck %s --check-prefixes=NOTB,NEG
// NEG: <stdin>:2:1: error: 'func.func' tile.num_warps must be {{.*}}, got -4

// RUN: sed 's/NUM_WARPS/1 : i32/' %S/Inputs/num-warps.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,ONE
// ONE: <stdin>:2:1: error: 'func.func' tile.num_warps must be {{.*}}, got 1

// RUN: sed 's/NUM_WARPS/3 : i32/' %S/Inputs/num-warps.mlir | not ws-opt -p 'ws-sched''ule,ws-specialize' 2>&1 | filecheck %s --check-prefixes=NOTB,THREE
// THREE: <stdin>:2:1: error: 'func.func' tile.num_warps must be {{.*}}, got 3

// RUN: sed 's/NUM_WARPS/1024 : i32/' %S/Inputs/num-warps.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,BIG
// BIG: <stdin>:2:1: error: 'func.func' tile.num_warps must be {{.*}}, got 1024

// 32 warps leave no room for the producer warp group.
// RUN: sed 's/NUM_WARPS/32 : i32/' %S/Inputs/num-warps.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,FULL
// FULL: <stdin>:2:1: error: 'func.func' tile.num_warps must be {{.*}} from 4 to 28 {{.*}}, got 32

// RUN: sed 's/NUM_WARPS/"eight"/' %S/Inputs/num-warps.mlir | not ws-opt -p 'ws-sched''ule' 2>&1 | filecheck %s --check-prefixes=NOTB,STRING
// STRING: <stdin>:2:1: error: 'func.func' tile.num_warps must be an integer number of warps (e.g. `tile.num_warps = 8 : i32`), got "eight"

// RUN: sed 's/NUM_WARPS/8.0 : f32/' %S/Inputs/num-warps.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,FLOAT
// FLOAT: <stdin>:2:1: error: 'func.func' tile.num_warps must be an integer number of warps {{.*}}, got 8.000000e+00 : f32

// 28 compute warps are legal; warp-specialized, the kernel counts all 32.
// RUN: sed 's/NUM_WARPS/28 : i32/' %S/Inputs/num-warps.mlir | ws-opt -p ws-specialize | filecheck %s --check-prefix=MOST
// MOST: tile.num_warps = 32 : i32
// MOST: warp_group.partition 1 consumer warps 28
// ... and the result still verifies when it is read back.
// RUN: sed 's/NUM_WARPS/28 : i32/' %S/Inputs/num-warps.mlir | ws-opt -p ws-specialize | ws-opt | filecheck %s --check-prefix=MOST

// tile.kernel is a unit attribute.
// RUN: not ws-opt %S/Inputs/kernel-not-unit.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,KERNEL
// KERNEL: {{.*}}Inputs/kernel-not-unit.mlir:2:1: error: 'func.func' tile.kernel is a unit attribute (`attributes {tile.kernel}`), got 1 : i32
