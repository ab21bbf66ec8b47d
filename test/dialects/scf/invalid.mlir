// scf.if yields are checked as MLIR does (wsdialects/scf.py; xDSL 0.74 checks none): one
// located error at the scf.if, before any pass, never an IndexError in ws-cooperative or
// the LLVM emitter.
//
// The cases whose diagnostic is at an op are the `// -----` parts of this file, checked
// with --verify-diagnostics; those whose column matters (types, syntax) keep one file
// each in Inputs/ and FileCheck lines with the exact file:line:col message. Neither may
// print a traceback.
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// A kernel's epilogue scf.if whose then branch yields nothing, through the pipelines that failed on it.
// RUN: not ws-opt %S/Inputs/if-no-yield-kernel.mlir -p 'ws-specialize{cooperative=2}' 2>&1 | filecheck %s --check-prefixes=NOTB,NO-YIELD
// RUN: not ws-opt %S/Inputs/if-no-yield-kernel.mlir -p ws-hopper -t llvm 2>&1 | filecheck %s --check-prefixes=NOTB,NO-YIELD
// NO-YIELD: {{.*}}Inputs/if-no-yield-kernel.mlir:28:3: error: 'scf.if' the then branch yields () but the scf.if has results (tensor<64x64xf32>, f32)
// NO-YIELD-EMPTY:

// -----

// scf.if with results needs an else branch.
func.func @f(%c: i1, %x: tensor<4xf32>) {
  // expected-error@+1 {{'scf.if' an scf.if with results must have an else branch yielding 1 values}}
  %t = scf.if %c -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  }
  func.return
}

// -----

// scf.if: each branch yields the result types.
func.func @f(%c: i1, %x: tensor<4xf32>, %i: i32) {
  // expected-error@+1 {{'scf.if' the else branch yields (tensor<4xf32>, i32) but the scf.if has results (tensor<4xf32>, f32)}}
  %t, %s = scf.if %c -> (tensor<4xf32>, f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %x, %one : tensor<4xf32>, f32
  } else {
    scf.yield %x, %i : tensor<4xf32>, i32
  }
  func.return
}
