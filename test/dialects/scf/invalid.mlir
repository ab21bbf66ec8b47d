// scf.if yields are checked as MLIR does (wsdialects/scf.py; xDSL 0.74 checks
// none): one located error at the scf.if, before any pass, never an
// IndexError in ws-cooperative or the LLVM emitter.
//
// NOTB-NOT: {{Traceback|internal error}}

// RUN: not ws-opt %S/Inputs/if-no-else.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,NO-ELSE
// NO-ELSE: {{.*}}Inputs/if-no-else.mlir:3:3: error: 'scf.if' an scf.if with results must have an else branch yielding 1 values

// RUN: not ws-opt %S/Inputs/if-yield-type.mlir 2>&1 | filecheck %s --check-prefixes=NOTB,YIELD-TYPE
// YIELD-TYPE: {{.*}}Inputs/if-yield-type.mlir:3:3: error: 'scf.if' the else branch yields (tensor<4xf32>, i32) but the scf.if has results (tensor<4xf32>, f32)

// A kernel's epilogue scf.if whose then branch yields nothing, through the pipelines that failed on it.
// RUN: not ws-opt %S/Inputs/if-no-yield-kernel.mlir -p 'ws-specialize{cooperative=2}' 2>&1 | filecheck %s --check-prefixes=NOTB,NO-YIELD
// RUN: not ws-opt %S/Inputs/if-no-yield-kernel.mlir -p ws-hopper -t llvm 2>&1 | filecheck %s --check-prefixes=NOTB,NO-YIELD
// NO-YIELD: {{.*}}Inputs/if-no-yield-kernel.mlir:28:3: error: 'scf.if' the then branch yields () but the scf.if has results (tensor<64x64xf32>, f32)
// NO-YIELD-EMPTY:
