// ws-lead-warp: a producer branch that only issues TMA copies (one elected thread's work,
// slot waits, scalar index arithmetic) runs in its first warp: everything after its
// setmaxnreg moves into nvgpu.wg.lead_warp. Consumers, and producers that store computed
// tiles and arrive once per warp, keep all their warps.
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=3 mma-depth=1},ws-lower-aref,ws-lower-warp-groups,ws-lead-warp' | filecheck %s
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=3 mma-depth=1},ws-lower-aref,ws-lower-warp-groups,ws-lead-warp,ws-lead-warp' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: ws-opt %S/../Inputs/kernels/computed_put.mlir -p 'ws-lower-aref,ws-lower-warp-groups,ws-lead-warp' 2>&1 | filecheck %s --check-prefix=COMPUTED
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-lead-warp 2>&1 | filecheck %s --check-prefix=NONE
// RUN: ws-opt %s -p ws-lead-warp 2>&1 | filecheck %s --check-prefix=NOKERNEL
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{lead-warp=false}' | filecheck %s --check-prefix=OFF
// RUN: ws-opt %shared/kernels/gemm.mlir -p ws-hopper -t llvm | filecheck %s --check-prefix=LLVM

// CHECK: nvgpu.wg.branch warps 0 to 4 "producer" {
// CHECK-NEXT: nvgpu.setmaxnreg dec 40
// CHECK-NEXT: nvgpu.wg.lead_warp {
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %aref_a_b_empty
// CHECK-NEXT: nvgpu.mbarrier.arrive_expect_tx %aref_a_b_full[%slot] bytes 49152
// CHECK-NEXT: nvgpu.tma.async_load %a_desc
// CHECK-NEXT: nvgpu.tma.async_load %b_desc
// CHECK: nvgpu.wg.branch warps 4 to 12 "consumer" {
// CHECK-NEXT: nvgpu.setmaxnreg inc 232
// CHECK-NOT: nvgpu.wg.lead_warp

// A second run finds the producer done and says so.
// TWICE: remark: ws-lead-warp: no nvgpu.wg.branch whose work is one thread's TMA copies
// TWICE: nvgpu.wg.lead_warp {
// TWICE-NOT: nvgpu.wg.lead_warp {

// COMPUTED: remark: ws-lead-warp: no nvgpu.wg.branch
// COMPUTED: "producer" {
// COMPUTED-NOT: nvgpu.wg.lead_warp
// COMPUTED: nvgpu.smem.store
// COMPUTED: nvgpu.mbarrier.arrive {{.*}} per_thread

// Before the lowering there is no branch: a remark, nothing changed.
// NONE: remark: ws-lead-warp: no nvgpu.wg.branch whose work is one thread's TMA copies and barrier waits (run ws-lower-aref and ws-lower-warp-groups first); nothing changed
// NOKERNEL: warning: ws-lead-warp: no tile.kernel function; nothing to do

// OFF: "producer" {
// OFF-NOT: nvgpu.wg.lead_warp

// The emitted branch: warp 0 of the producer group runs the loop, the others jump past it.
// LLVM: setmaxnreg.dec.sync.aligned.u32 40
// LLVM-NEXT: %[[W:.*]] = lshr i32 %tip{{[0-9]*}}, 5
// LLVM-NEXT: %[[C:.*]] = icmp eq i32 %[[W]], 0
// LLVM-NEXT: br i1 %[[C]], label %lead_warp{{[0-9]*}}, label %lead_warp_done{{[0-9]*}}

func.func @not_a_kernel() {
  func.return
}
