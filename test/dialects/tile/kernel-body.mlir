// A tile.kernel function's body is one block of structured control flow (the passes read it
// as one: scf.for, scf.if). A kernel with no body (a declaration, e.g. an input cut short
// after its attributes) or with several blocks is one located error at the func.func, before
// any pass, never "internal error: ValueError: 'block' property of Region class is only
// available for single-block regions" (fuzz case 9198 of seed 20261130, issue 12).
//
// RUN: ws-opt %s --split-input-file --verify-diagnostics > /dev/null
//
// NOTB-NOT: {{Traceback|internal error}}

// tma_store_gemm.mlir cut short after its attributes, through the pipeline that failed on it.
// RUN: not ws-opt %S/Inputs/kernel-cut-short.mlir -p 'ws-specialize{depth=2 mma-depth=1},ws-lower-aref,ws-lower-warp-groups' 2>&1 | filecheck %s --check-prefixes=NOTB,CUT
// RUN: not ws-opt %S/Inputs/kernel-cut-short.mlir -p ws-hopper -t llvm 2>&1 | filecheck %s --check-prefixes=NOTB,CUT
// CUT: {{.*}}Inputs/kernel-cut-short.mlir:6:1: error: 'func.func' a tile.kernel function needs a body: @tma_store_gemm is only a declaration (no `{ ... }`; is the input cut short?)
// CUT-EMPTY:

// -----

// expected-error@+1 {{'func.func' a tile.kernel function needs a body: @k is only a declaration}}
func.func @k(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32}

// -----

// expected-error@+1 {{'func.func' the body of a tile.kernel function is one block (structured control flow: scf.for, scf.if), @k has 2 (the second block's first op is at line 28)}}
func.func @k(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  func.return
^bb1:
  func.return
}

// -----

// Other functions may be declarations or have several blocks (MLIR's rules).
func.func private @declared(%n: i32)
func.func @blocks(%n: i32) {
  func.return
^bb1:
  func.return
}
