// Invalid nvvm ops. Each case is one file in Inputs/: ws-opt exits non-zero and
// prints one located diagnostic (file:line:col: error: message), never a traceback.
//
// NOTB-NOT: {{Traceback|internal error}}

// read_sreg: known special registers only.
// RUN: not ws-opt %S/Inputs/sreg-unknown.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SREG-UNKNOWN
// SREG-UNKNOWN: {{.*}}Inputs/sreg-unknown.mlir:3:3: error: 'nvvm.read_sreg' unknown special register 'clock' (known: tid.x, tid.y, tid.z, ntid.x, laneid, warpid, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z, smid)

// read_sreg: special registers are i32.
// RUN: not ws-opt %S/Inputs/sreg-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SREG-TYPE
// SREG-TYPE: {{.*}}Inputs/sreg-type.mlir:3:31: error: special registers are i32, got i64

// shfl_sync: bfly, down, up or idx.
// RUN: not ws-opt %S/Inputs/shfl-mode.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SHFL-MODE
// SHFL-MODE: {{.*}}Inputs/shfl-mode.mlir:3:23: error: expected a shuffle mode (bfly, down, up, idx)

// shfl_sync: 32-bit values.
// RUN: not ws-opt %S/Inputs/shfl-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SHFL-TYPE
// SHFL-TYPE: {{.*}}Inputs/shfl-type.mlir:3:3: error: 'nvvm.shfl_sync' shfl.sync moves 32-bit values (i32, f32), got f16

// shfl_sync: lane offset in [0, 31].
// RUN: not ws-opt %S/Inputs/shfl-offset.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SHFL-OFFSET
// SHFL-OFFSET: {{.*}}Inputs/shfl-offset.mlir:3:3: error: 'nvvm.shfl_sync' shuffle lane offset must be in [0, 31], got 32

// barrier: ids 0..15.
// RUN: not ws-opt %S/Inputs/barrier-id.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,BARRIER-ID
// BARRIER-ID: {{.*}}Inputs/barrier-id.mlir:3:3: error: 'nvvm.barrier' barrier id must be in [0, 15], got 16

// barrier: whole warps.
// RUN: not ws-opt %S/Inputs/barrier-threads.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,BARRIER-THREADS
// BARRIER-THREADS: {{.*}}Inputs/barrier-threads.mlir:3:3: error: 'nvvm.barrier' a named barrier counts whole warps (a multiple of 32, at most 1024), got 100

// barrier_arrive: only named barriers 1..15 (barrier 0 is the CTA's).
// RUN: not ws-opt %S/Inputs/barrier-arrive-id.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,BARRIER-ARRIVE-ID
// BARRIER-ARRIVE-ID: {{.*}}Inputs/barrier-arrive-id.mlir:3:3: error: 'nvvm.barrier_arrive' barrier id must be in [1, 15] (0 is the CTA's), got 0
