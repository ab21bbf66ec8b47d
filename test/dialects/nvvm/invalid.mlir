// Invalid nvvm ops.
//
// The cases whose diagnostic is at an op are the `// -----` parts of this file, checked
// with --verify-diagnostics; those whose column matters (types, syntax) keep one file
// each in Inputs/ and FileCheck lines with the exact file:line:col message. Neither may
// print a traceback.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// read_sreg: special registers are i32.
// RUN: not ws-opt %S/Inputs/sreg-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SREG-TYPE
// SREG-TYPE: {{.*}}Inputs/sreg-type.mlir:3:31: error: special registers are i32, got i64

// shfl_sync: bfly, down, up or idx.
// RUN: not ws-opt %S/Inputs/shfl-mode.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,SHFL-MODE
// SHFL-MODE: {{.*}}Inputs/shfl-mode.mlir:3:23: error: expected a shuffle mode (bfly, down, up, idx)

// -----

// read_sreg: known special registers only.
// read_sreg: known special registers only
func.func @f() {
  // expected-error@+1 {{'nvvm.read_sreg' unknown special register 'clock' (known: tid.x, tid.y, tid.z, ntid.x, laneid, warpid, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z, smid)}}
  %t = nvvm.read_sreg clock : i32
  func.return
}

// -----

// shfl_sync: 32-bit values.
// shfl_sync: 32-bit values
func.func @f(%x: f16) {
  // expected-error@+1 {{'nvvm.shfl_sync' shfl.sync moves 32-bit values (i32, f32), got f16}}
  %y = nvvm.shfl_sync bfly %x, 1 : f16
  func.return
}

// -----

// shfl_sync: lane offset in [0, 31].
// shfl_sync: lane offset in [0, 31]
func.func @f(%x: f32) {
  // expected-error@+1 {{'nvvm.shfl_sync' shuffle lane offset must be in [0, 31], got 32}}
  %y = nvvm.shfl_sync down %x, 32 : f32
  func.return
}

// -----

// barrier: ids 0..15.
// barrier: ids 0..15
func.func @f() {
  // expected-error@+1 {{'nvvm.barrier' barrier id must be in [0, 15], got 16}}
  nvvm.barrier 16
  func.return
}

// -----

// barrier: whole warps.
// barrier: whole warps
func.func @f() {
  // expected-error@+1 {{'nvvm.barrier' a named barrier counts whole warps (a multiple of 32, at most 1024), got 100}}
  nvvm.barrier 1 threads 100
  func.return
}

// -----

// barrier_arrive: only named barriers 1..15 (barrier 0 is the CTA's).
// barrier_arrive: a named barrier (id 0 is the CTA's, waited on by all threads)
func.func @f() {
  // expected-error@+1 {{'nvvm.barrier_arrive' barrier id must be in [1, 15] (0 is the CTA's), got 0}}
  nvvm.barrier_arrive 0 threads 256
  func.return
}
