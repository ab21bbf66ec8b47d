// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{persistent=true},ws-lower-aref,ws-lower-warp-groups' | filecheck %s
// RUN: ws-opt %S/../Inputs/kernels/fp8_gemm.mlir -p 'ws-specialize,ws-lower-aref,ws-lower-warp-groups' | filecheck %s --check-prefix=SMALL
// RUN: ws-opt %S/../Inputs/kernels/computed_put.mlir -p 'ws-lower-aref,ws-lower-warp-groups' | ws-opt | filecheck %s --check-prefix=RT

// 4 producer + 8 consumer warps = 384 threads (170 registers each at launch): the
// producer gives registers back (dec 40), the consumers take them (inc 232);
// 128*40 + 256*232 = 64512 <= 65536. The consumer's warp_group.barrier before the
// epilogue becomes named barrier 2 over its 256 threads.
// CHECK: nvvm.barrier 0
// CHECK-NEXT: nvgpu.wg.dispatch threads 384 {
// CHECK-NEXT: nvgpu.wg.branch warps 0 to 4 "producer" {
// CHECK-NEXT: nvgpu.setmaxnreg dec 40
// CHECK: nvgpu.wg.branch warps 4 to 12 "consumer" {
// CHECK-NEXT: nvgpu.setmaxnreg inc 232
// CHECK: nvvm.barrier 2 threads 256
// CHECK-NOT: warp_group.

// 4 + 4 warps = 256 threads (248 registers at launch): dec 40 for the producer, inc 256
// for the 4 consumer warps (128*40 + 128*256 fits).
// SMALL: nvgpu.wg.dispatch threads 256 {
// SMALL-NEXT: nvgpu.wg.branch warps 0 to 4 "producer" {
// SMALL-NEXT: nvgpu.setmaxnreg dec 40
// SMALL: nvgpu.wg.branch warps 4 to 8 "consumer" {
// SMALL-NEXT: nvgpu.setmaxnreg inc 256

// RT: nvgpu.wg.dispatch threads 256

// Turns (ws-pingpong) become named barriers after the partitions' own; a team that
// does not hold every group's turns is refused.
// RUN: not ws-opt %S/Inputs/turn-lonely.mlir -p ws-lower-warp-groups 2>&1 | filecheck %s --check-prefix=LONELY
// LONELY: turn-lonely.mlir:5:7: error: ws-lower-warp-groups: no partition takes the turns of group 1 of 2: the turn would never come back
// RUN: not ws-opt %S/Inputs/turn-twice.mlir -p ws-lower-warp-groups 2>&1 | filecheck %s --check-prefix=TWICE
// TWICE: turn-twice.mlir:8:7: error: ws-lower-warp-groups: partitions 0 and 1 both take the turns of group 0 of 2
