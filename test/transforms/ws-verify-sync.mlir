// ws-verify-sync: the static synchronization check (issue 12), alone on aref IR and on
// lowered mbarrier / named-barrier IR. ws-specialize and ws-hopper run it themselves
// (there a violation is an internal compiler error, exit 2); alone it checks its input.
//
// Correct IR passes through unchanged, also the compiler's own output.
// RUN: ws-opt %S/Inputs/verify-sync/rings.mlir -p ws-verify-sync | filecheck %s --check-prefix=OK
// RUN: ws-opt %S/Inputs/verify-sync/mbarriers.mlir -p ws-verify-sync | filecheck %s --check-prefix=OK
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{cooperative=2 pingpong=true},ws-verify-sync' | filecheck %s --check-prefix=OK
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{persistent=true},ws-verify-sync' | filecheck %s --check-prefix=OK
// OK: func.func @

// aref level.
// RUN: not ws-opt %S/Inputs/verify-sync/consumers.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=CONSUMERS
// CONSUMERS: consumers.mlir:4:3: error: ws-verify-sync: ring %r has consumers = 2, but it is released by 1 partition: partition 1 (consumer)
// RUN: not ws-opt %S/Inputs/verify-sync/unreleased.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=UNRELEASED
// UNRELEASED: unreleased.mlir:14:9: error: ws-verify-sync: partition 1 (consumer) gets from ring %r but never releases a slot of it (no aref.consumed)
// A release on one path of an scf.if only (odd positions are never released):
// RUN: not ws-opt %S/Inputs/verify-sync/odd-release.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=PATH
// PATH: odd-release.mlir:14:9: error: ws-verify-sync: partition 1 (consumer) gets position 1 of ring %r here and never releases it (no aref.consumed of that position)
// A release that depends on tile data (the check runs one path of such a branch: both must agree):
// RUN: not ws-opt %S/Inputs/verify-sync/data-release.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=DATA
// DATA: data-release.mlir:19:9: error: ws-verify-sync: the branches of this scf.if, whose condition depends on tile data, synchronize differently (aref.consumed on one path only)
// RUN: not ws-opt %S/Inputs/verify-sync/two-putters.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=PUTTERS
// PUTTERS: two-putters.mlir:14:7: error: ws-verify-sync: ring %r is put into by partition 0 (producer) and by partition 2 (other): a ring has one producing partition
// RUN: not ws-opt %S/Inputs/verify-sync/cycle.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=CYCLE
// CYCLE: cycle.mlir:19:9: error: ws-verify-sync: deadlock: partition 1 (first) waits here for position 0 of ring %y to be put; partition 2 (second) waits at 27:9 for position 0 of ring %x to be put
// RUN: not ws-opt %S/Inputs/verify-sync/turns.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=TURNS
// TURNS: turns.mlir:10:9: error: ws-verify-sync: the turn passed here to group 1 of 2 is never taken (no turn_wait of that group is left to take it)

// Inside ws-specialize / ws-hopper, a kernel that is warp-specialized on input (hand-written
// aref IR) is checked before the passes: its defect is the input's, a user error (exit 1, no
// "internal compiler error" before the message; fuzz syntax cases 3622, 5464, computed_put.mlir).
// RUN: not ws-opt %S/Inputs/verify-sync/unreleased.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefix=INPUT
// RUN: not ws-opt %S/Inputs/verify-sync/cycle.mlir -p ws-hopper 2>&1 | filecheck %s --check-prefix=INPUT-CYCLE
// INPUT: unreleased.mlir:14:9: error: ws-verify-sync: partition 1 (consumer) gets from ring %r but never releases a slot of it (no aref.consumed)
// INPUT-CYCLE: cycle.mlir:19:9: error: ws-verify-sync: deadlock: partition 1 (first) waits here for position 0 of ring %y to be put

// mbarrier / named-barrier level.
// RUN: not ws-opt %S/Inputs/verify-sync/mbarrier-count.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=COUNT
// COUNT: mbarrier-count.mlir:11:3: error: ws-verify-sync: %empty expects 8 arrivals per phase, but each phase gets 4: 4 from warps 4-8 (consumer) (arrive at 33:9)
// RUN: not ws-opt %S/Inputs/verify-sync/no-full-wait.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=RACE
// RACE: no-full-wait.mlir:31:9: error: ws-verify-sync: warps 4-8 (consumer) reads %buf[0] here, but no barrier orders this after warps 0-4 (producer)'s write of it at 23:9: a data race
// RUN: not ws-opt %S/Inputs/verify-sync/no-empty-wait.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=PHASES
// PHASES: no-empty-wait.mlir:22:9: error: ws-verify-sync: this completes phase #1 of %full[0] while warps 4-8 (consumer) has waited for 0 of its phases: the phases overrun
// RUN: not ws-opt %S/Inputs/verify-sync/extra-arrive.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=EXTRA
// EXTRA: extra-arrive.mlir:34:9: error: ws-verify-sync: this completes phase #1 of %empty[0] while warps 0-4 (producer) has waited for 0 of its phases
// RUN: not ws-opt %S/Inputs/verify-sync/no-init-fence.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=FENCE
// FENCE: no-init-fence.mlir:11:3: error: ws-verify-sync: the mbarrier initializations must be fenced (nvgpu.fence.mbarrier_init) and followed by a CTA barrier (nvvm.barrier 0)
// RUN: not ws-opt %S/Inputs/verify-sync/named-barrier.mlir -p ws-verify-sync 2>&1 | filecheck %s --check-prefix=NAMED
// NAMED: named-barrier.mlir:8:7: error: ws-verify-sync: named barrier 3 counts 384 threads, but warps 0-4 (consumer0), warps 4-8 (consumer1) meet there: 256 threads
// A loop bound that divides by zero is the kernel's own defect: a located error at the division
// (exit 1), not an internal error about synchronization that depends on tile data (found by
// the fuzzer, seed 20261126 case 14778: a block size mutated to 0).
// RUN: sed 's/%%Kt = arith.constant 64/%%Kt = arith.constant 0/' %shared/kernels/gemm.mlir | not ws-opt -p ws-specialize 2>&1 | filecheck %s --check-prefix=DIVZERO
// DIVZERO: <stdin>:18:5: error: ws-verify-sync: arith.ceildivsi divides by zero here (divisor %Kt is 0), and the kernel's control flow (loop bounds, ring positions) depends on the result
// DIVZERO-NOT: internal compiler error
