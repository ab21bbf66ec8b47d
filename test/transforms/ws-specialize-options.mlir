// Each option of ws-specialize and ws-hopper is checked against its own range first, and
// named as the pass spells it (mma-depth, cooperative), never by a sub-pass's name for it
// (ws-pipeline-mma's depth, ws-cooperative's groups); then how the options combine. One
// located-at-the-tool error, exit 1, never an internal error.
//
// NOTB-NOT: {{Traceback|internal error}}

// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=0}' 2>&1 | filecheck %s --check-prefixes=NOTB,DEPTH0
// DEPTH0: ws-opt: error: ws-specialize: depth (slots per aref ring) must be >= 1, got 0
// DEPTH0-EMPTY:
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{depth=0}' 2>&1 | filecheck %s --check-prefixes=NOTB,HDEPTH0
// HDEPTH0: ws-opt: error: ws-hopper: depth (slots per aref ring) must be >= 1, got 0
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=-1}' 2>&1 | filecheck %s --check-prefixes=NOTB,DEPTHNEG
// DEPTHNEG: ws-opt: error: ws-specialize: depth (slots per aref ring) must be >= 1, got -1

// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{mma-depth=-1}' 2>&1 | filecheck %s --check-prefixes=NOTB,MMA
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{mma-depth=-1}' 2>&1 | filecheck %s --check-prefixes=NOTB,MMA
// MMA: error: ws-{{specialize|hopper}}: mma-depth (wgmma batches in flight) must be >= 0, got -1

// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{cooperative=0}' 2>&1 | filecheck %s --check-prefixes=NOTB,COOP
// COOP: ws-opt: error: ws-specialize: cooperative (consumer warp groups per tile; 1: no team) must be >= 1, got 0
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{ctas-per-sm=33}' 2>&1 | filecheck %s --check-prefixes=NOTB,CTAS
// CTAS: ws-opt: error: ws-hopper: ctas-per-sm (CTAs sharing an SM) must be from 1 to 32, got 33
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{persistent=true programs=-2}' 2>&1 | filecheck %s --check-prefixes=NOTB,PROGRAMS
// PROGRAMS: ws-opt: error: ws-specialize: programs (persistent programs; 0: one per CTA the SMs hold) must be >= 0, got -2
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{persistent=true tile-group=-3}' 2>&1 | filecheck %s --check-prefixes=NOTB,GROUP
// GROUP: ws-opt: error: ws-hopper: tile-group (row blocks per band; 0: x fastest, -1: chosen per kernel) must be >= -1, got -3
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{team-stores=scatter}' 2>&1 | filecheck %s --check-prefixes=NOTB,STORES
// STORES: ws-opt: error: ws-hopper: team-stores must be gather or split, got 'scatter'

// Each option in range, together out of range: how they combine, and what to pass instead.
// ws-hopper's mma-depth default (1) with depth=1:
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-hopper{depth=1}' 2>&1 | filecheck %s --check-prefixes=NOTB,COMBINE
// COMBINE: ws-opt: error: ws-hopper: mma-depth (1) must be smaller than depth (1): a consumer keeps a ring slot per wgmma batch in flight, and the producer needs a free one to load into (with depth=1, use mma-depth=0)
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{depth=3 mma-depth=3}' 2>&1 | filecheck %s --check-prefixes=NOTB,COMBINE3
// COMBINE3: ws-opt: error: ws-specialize: mma-depth (3) must be smaller than depth (3): {{.*}} (with depth=3, use mma-depth from 0 to 2)
