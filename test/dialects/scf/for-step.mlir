// An scf.for whose step is a constant of zero or less is rejected as MLIR's verifier does
// (wsdialects/scf.py; xDSL 0.74 accepts it): one located error at the loop, before any
// pass, never a kernel whose partitions spin on one ring position (issue 12: reported as
// an internal error of ws-verify-sync).
//
// NOTB-NOT: {{Traceback|internal}}

// RUN: not ws-opt %S/Inputs/for-step-zero.mlir -p ws-specialize 2>&1 | filecheck %s --check-prefixes=NOTB,ZERO
// RUN: not ws-opt %S/Inputs/for-step-zero.mlir -p ws-hopper -t llvm 2>&1 | filecheck %s --check-prefixes=NOTB,ZERO
// ZERO: {{.*}}Inputs/for-step-zero.mlir:9:3: error: 'scf.for' constant step operand must be positive, got 0

// In a hand-written partition:
// RUN: not ws-opt %S/Inputs/for-step-negative-partition.mlir -p ws-hopper 2>&1 | filecheck %s --check-prefixes=NOTB,NEG
// NEG: {{.*}}Inputs/for-step-negative-partition.mlir:22:7: error: 'scf.for' constant step operand must be positive, got -1
