// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-partition,ws-distribute{depth=2},ws-pipeline-mma{depth=1},ws-pipeline-coarse{softmax-overlap=qk}' | filecheck %s --check-prefix=QK
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-specialize{depth=2 mma-depth=1 cooperative=2 pingpong=true softmax-overlap=qk}' | filecheck %s --check-prefix=TEAM
// RUN: ws-opt %S/../../examples/kernels/flash_attention_d64.mlir -p 'ws-hopper{cooperative=2 pingpong=true persistent=false softmax-overlap=qk}' -t ptx -o %t.d64.ptx 2>&1 | filecheck %s --check-prefix=QUIET
// RUN: filecheck %s --check-prefix=PTX < %t.d64.ptx
// RUN: not ws-opt %shared/kernels/attention.mlir -p 'ws-pipeline-coarse{softmax-overlap=kq}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not ws-opt %shared/kernels/attention.mlir -p 'ws-hopper{softmax-overlap=qv}' 2>&1 | filecheck %s --check-prefix=BAD-HOPPER

// softmax-overlap=qk: the prologue issues and waits for T_0 = Q K_0^T only; each steady
// iteration issues T_{j+1} first, runs the softmax of S_j (carried in, retired), waits for
// the P·V it carried in flight (U_{j-1}, pending = 0: T_{j+1} retires with it) just before
// the rescale reads it, then releases U_{j-1}'s V slot (none held in the first iteration),
// rescales, issues U_j and waits for T_{j+1} with U_j still in flight (pending = 1). U_j's
// accumulator leaves the iteration in flight, with its slot's position and `held`.
// QK: warp_group.partition 1 consumer
// QK: scf.if %runs
// QK-NEXT: %[[K0:.*]] = aref.get %aref_k
// QK-NEXT: tile.trans %[[K0]]
// QK-NEXT: %[[T0:.*]] = mma.async_dot %{{.*}}, %{{.*}}, %zero_qk
// QK-NEXT: %[[S0:.*]] = mma.wait %[[T0]] {pending = 0}
// QK-NEXT: aref.consumed %aref_k
// QK-NOT: math.exp2
// QK: %none_held = arith.constant false
// QK: scf.for %[[J:.*]] = %second to %{{.*}} iter_args(%qk_prev = %[[S0]], {{.*}}, %acc_prev = %acc0, %j_prev_held = %{{.*}}, %held = %none_held)
// QK-NEXT: %[[K:.*]] = aref.get %aref_k[%[[J]]]
// QK-NEXT: %[[KT:.*]] = tile.trans %[[K]]
// QK-NEXT: %[[T:.*]] = mma.async_dot %{{.*}}, %[[KT]], %zero_qk
// QK-NOT: mma.wait
// QK: tile.reduce max %qk_prev
// QK-NOT: mma.wait
// QK: math.exp2
// QK: %[[O:[a-z_0-9]+]] = mma.wait %acc_prev {pending = 0}
// QK-NEXT: scf.if %held {
// QK-NEXT: aref.consumed %aref_v[%j_prev_held]
// QK: arith.mulf %[[O]],
// QK: %[[V:.*]] = aref.get %aref_v[%j_prev]
// QK: %[[U:.*]] = mma.async_dot %p16, %[[V]], %acc_s
// QK-NEXT: %[[S:.*]] = mma.wait %[[T]] {pending = 1}
// QK-NEXT: aref.consumed %aref_k[%[[J]]]
// QK-NOT: aref.consumed %aref_v
// QK: %held_now = arith.constant true
// QK-NEXT: scf.yield %[[S]], {{.*}}, %[[U]], %j_prev, %held_now
// QK-NEXT: } {ws.peeled = 1 : i32, ws.qk_ahead = 1 : i32}
// The last tile: its softmax, the wait for U_{N-2} and its release, then U_{N-1}.
// QK: math.exp2
// QK: mma.wait %acc_last {pending = 0}
// QK-NEXT: scf.if %held_last {
// QK-NEXT: aref.consumed %aref_v[%j_prev_last]
// QK: mma.async_dot
// QK-NEXT: mma.wait %{{.*}} {pending = 0}
// QK-NEXT: aref.consumed %aref_v[%j_last]

// In ws-specialize the team's groups get the producer's spare registers (ws-producer-registers).
// TEAM: warp_group.partition 0 producer warps 4 regs 24
// TEAM: warp_group.partition 1 consumer0 warps 4 regs 240
// TEAM: ws.qk_ahead = 1
// TEAM: warp_group.partition 2 consumer1 warps 4 regs 240
// TEAM: ws.qk_ahead = 1

// d 64 through ws-hopper and ptxas: no spill, no serialized wgmma (-t ptx would warn).
// QUIET-NOT: warning
// The steady state in the PTX (the P·V block comes first in the file): U_j's eight k-steps
// (m64n64k16) in the group's turn, then the wait for T_{j+1} with U_j in flight; T_{j+1}'s
// four k-steps (m64n128k16) in the next turn, the softmax's exponentials with no wgmma wait
// among them, and only then wait_group 0 (U_{j-1} and T_{j+1}).
// PTX: setmaxnreg.dec.sync.aligned.u32 24;
// PTX: setmaxnreg.inc.sync.aligned.u32 240;
// PTX: bar.sync 4, 256;
// PTX: wgmma.mma_async.sync.aligned.m64n64k16
// PTX: wgmma.commit_group.sync.aligned;
// PTX: bar.arrive 5, 256;
// PTX-NOT: ex2.approx
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: bar.sync 4, 256;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16
// PTX: bar.arrive 5, 256;
// PTX-NOT: wgmma.wait_group
// PTX: ex2.approx.ftz.f32
// PTX-NOT: wgmma.wait_group
// PTX: ex2.approx.ftz.f32
// PTX: wgmma.wait_group.sync.aligned 0;

// BAD: error: ws-pipeline-coarse: softmax-overlap must be pv or qk, got 'kq'
// BAD-HOPPER: error: ws-hopper: softmax-overlap must be pv or qk, got 'qv'
