// Invalid nvgpu ops. Each case is one file in Inputs/: ws-opt exits non-zero and
// prints one located diagnostic (file:line:col: error: message), never a traceback.
//
// NOTB-NOT: {{Traceback|internal error}}

// init: a barrier expects at least one arrival.
// RUN: not ws-opt %S/Inputs/init-count-zero.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,INIT-COUNT-ZERO
// INIT-COUNT-ZERO: {{.*}}Inputs/init-count-zero.mlir:4:3: error: 'nvgpu.mbarrier.init' mbarrier arrival count must be >= 1, got 0

// !nvgpu.mbarriers: at least one barrier.
// RUN: not ws-opt %S/Inputs/mbarriers-zero.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,MBARRIERS-ZERO
// MBARRIERS-ZERO: {{.*}}Inputs/mbarriers-zero.mlir:3:32: error: !nvgpu.mbarriers needs at least one barrier, got 0

// arrive: the scope is per_warp or once.
// RUN: not ws-opt %S/Inputs/arrive-scope.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,ARRIVE-SCOPE
// ARRIVE-SCOPE: {{.*}}Inputs/arrive-scope.mlir:4:32: error: expected an arrive scope (per_warp, once)

// try_wait.parity: slot and parity are i32 (generic form).
// RUN: not ws-opt %S/Inputs/wait-parity-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,WAIT-PARITY-TYPE
// WAIT-PARITY-TYPE: {{.*}}Inputs/wait-parity-type.mlir:4:3: error: 'nvgpu.mbarrier.try_wait.parity' slot indices and parities must be i32, got i64

// arrive_expect_tx: the byte count is positive.
// RUN: not ws-opt %S/Inputs/expect-tx-bytes.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,EXPECT-TX-BYTES
// EXPECT-TX-BYTES: {{.*}}Inputs/expect-tx-bytes.mlir:4:3: error: 'nvgpu.mbarrier.arrive_expect_tx' transaction bytes must be in [1, 2^20), got 0

// smem.alloc: buffers live in shared memory (space 3).
// RUN: not ws-opt %S/Inputs/smem-space.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SMEM-SPACE
// SMEM-SPACE: {{.*}}Inputs/smem-space.mlir:3:3: error: 'nvgpu.smem.alloc' shared-memory buffers live in memory space 3, got memref<3x128x64xf16>

// tma.async_load: the descriptor's box is one slot of the buffer.
// RUN: not ws-opt %S/Inputs/tma-box.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TMA-BOX
// TMA-BOX: {{.*}}Inputs/tma-box.mlir:5:3: error: 'nvgpu.tma.async_load' TMA box tensor<64x64xf16> does not match a slot of memref<3x128x64xf16, 3 : i64>

// tma.async_load: one coordinate per box dimension.
// RUN: not ws-opt %S/Inputs/tma-coords.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,TMA-COORDS
// TMA-COORDS: {{.*}}Inputs/tma-coords.mlir:5:3: error: 'nvgpu.tma.async_load' 2-D box needs 2 coordinates, got 1

// smem.view: the result is one slot (generic form).
// RUN: not ws-opt %S/Inputs/view-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,VIEW-TYPE
// VIEW-TYPE: {{.*}}Inputs/view-type.mlir:4:3: error: 'nvgpu.smem.view' a slot of memref<3x128x64xf16, 3 : i64> is tensor<128x64xf16>, not tensor<64x64xf16>

// setmaxnreg: a multiple of 8 in [24, 256].
// RUN: not ws-opt %S/Inputs/setmaxnreg-regs.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SETMAXNREG-REGS
// SETMAXNREG-REGS: {{.*}}Inputs/setmaxnreg-regs.mlir:3:3: error: 'nvgpu.setmaxnreg' setmaxnreg needs a multiple of 8 in [24, 256], got 230

// setmaxnreg: inc or dec.
// RUN: not ws-opt %S/Inputs/setmaxnreg-action.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SETMAXNREG-ACTION
// SETMAXNREG-ACTION: {{.*}}Inputs/setmaxnreg-action.mlir:3:20: error: expected 'inc' or 'dec'

// dispatch: branches cover the warps in order.
// RUN: not ws-opt %S/Inputs/dispatch-gap.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DISPATCH-GAP
// DISPATCH-GAP: {{.*}}Inputs/dispatch-gap.mlir:3:3: error: 'nvgpu.wg.dispatch' branches must cover the warps in order without gaps: expected a branch at warp 0, got 4

// dispatch: register budgets fit the register file.
// RUN: not ws-opt %S/Inputs/dispatch-regfile.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,DISPATCH-REGFILE
// DISPATCH-REGFILE: {{.*}}Inputs/dispatch-regfile.mlir:3:3: error: 'nvgpu.wg.dispatch' register budgets need 66560 registers, the register file has 65536

// branch: whole warp groups.
// RUN: not ws-opt %S/Inputs/branch-warpgroup.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,BRANCH-WARPGROUP
// BRANCH-WARPGROUP: {{.*}}Inputs/branch-warpgroup.mlir:4:5: error: 'nvgpu.wg.branch' a branch is whole warp groups: first warp 0 and warp count 2 must be multiples of 4

// wgmma.wait_group: pending in [0, 7].
// RUN: not ws-opt %S/Inputs/wait-group-pending.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,WAIT-GROUP-PENDING
// WAIT-GROUP-PENDING: {{.*}}Inputs/wait-group-pending.mlir:3:3: error: 'nvgpu.wgmma.wait_group' wgmma.wait_group pending must be in [0, 7], got 9
