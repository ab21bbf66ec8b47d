// ws-occupancy{ctas-per-sm=C}: C CTAs share an SM. The kernel says so (ws.ctas_per_sm) and its
// partitions' budgets fit a C-th of the register file: the producer keeps 40, the one consumer
// warp group of a 64x128 tile would fit (32768 - 128 x 40) / 128 = 216 (256 at one CTA per SM),
// but gets what a thread has at launch, 65536 / (2 x 256) = 128: under .minnctapersm 2 ptxas
// compiles the whole kernel, the code after a setmaxnreg.inc too, within that.
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/f32out_gemm.mlir -p 'ws-partition,ws-distribute{depth=3},ws-occupancy{ctas-per-sm=2}' | filecheck %s
// CHECK: func.func @f32out_gemm
// CHECK-SAME: ws.ctas_per_sm = 2 : i32
// CHECK: warp_group.partition 0 producer warps 4 regs 40 {
// CHECK: warp_group.partition 1 consumer warps 4 regs 128 {

// Two consumer warp groups (gemm.mlir) would share (32768 - 5120) / 256 = 108 (104), but a thread of
// three warp groups has 65536 / (2 x 384) = 85, rounded down to 80, at launch.
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute,ws-occupancy{ctas-per-sm=2}' | filecheck %s --check-prefix=TWO
// TWO: warp_group.partition 1 consumer warps 8 regs 80 {

// ws-persistent then launches one program per CTA the SMs hold: 132 x 2.
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/f32out_gemm.mlir -p 'ws-specialize{persistent=true ctas-per-sm=2}' 2>/dev/null | filecheck %s --check-prefix=PERSIST
// PERSIST: ws.ctas_per_sm = 2 : i32, ws.persistent = {programs = 264 : i32}

// ws-hopper: rings in a C-th of the shared memory (depth 3 instead of 4), the dispatch checks the
// budgets against the CTA's share, the consumer keeps the 128 of the launch (no setmaxnreg.inc), and
// ptxas is asked for two CTAs per SM (.minnctapersm 2: at most 128 registers a thread).
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/f32out_gemm.mlir -p 'ws-hopper{auto=false ctas-per-sm=2}' 2>&1 | filecheck %s --check-prefix=HOPPER
// HOPPER: remark: ws-hopper: rings of depth 4 need 132160 bytes of shared memory, more than the 115712 a block can have at 2 CTAs per SM; using depth 3
// HOPPER: nvgpu.smem.alloc : memref<3x64x64xf16, 3 : i64>
// HOPPER: nvgpu.wg.dispatch threads 256 ctas_per_sm 2 {
// HOPPER: nvgpu.setmaxnreg dec 40
// HOPPER-NOT: nvgpu.setmaxnreg inc
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/f32out_gemm.mlir -p 'ws-hopper{auto=false ctas-per-sm=2}' -t ptx 2>/dev/null | filecheck %s --check-prefix=PTX
// PTX: .maxntid 256
// PTX-NEXT: .minnctapersm 2
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-NOT: setmaxnreg.inc

// Invalid: more threads than an SM holds, twice, a count out of range, a kernel whose one-slot
// rings do not fit a C-th of the shared memory; a kernel not warp-specialized gets a remark.
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-specialize{ctas-per-sm=8}' 2>&1 | filecheck %s --check-prefix=THREADS
// THREADS: gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: error: ws-occupancy: 8 CTAs of 384 threads exceed the 2048 threads an SM holds
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-partition,ws-distribute,ws-occupancy{ctas-per-sm=2},ws-occupancy{ctas-per-sm=2}' 2>&1 | filecheck %s --check-prefix=TWICE
// TWICE: gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: error: ws-occupancy: the kernel's CTAs per SM are set already (ws.ctas_per_sm = 2)
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-occupancy{ctas-per-sm=0}' 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not ws-opt %shared/kernels/gemm.mlir -p 'ws-occupancy{ctas-per-sm=33}' 2>&1 | filecheck %s --check-prefix=RANGE
// RANGE: error: ws-occupancy: ctas-per-sm must be from 1 to 32, got {{0|33}}
// RUN: not ws-opt %shared/kernels/attention.mlir -p 'ws-hopper{auto=false ctas-per-sm=2}' 2>&1 | filecheck %s --check-prefix=SMEM
// SMEM: attention.mlir:{{[0-9]+}}:{{[0-9]+}}: error: ws-hopper: at 2 CTAs per SM a block has 115712 bytes of shared memory, and rings of one slot already need {{[0-9]+}}: the kernel cannot share an SM (use fewer CTAs per SM, or smaller tiles)
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-occupancy{ctas-per-sm=2}' 2>&1 >/dev/null | filecheck %s --check-prefix=PLAIN
// PLAIN: gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: ws-occupancy: kernel not warp-specialized (run ws-distribute first); its CTAs per SM are left to the hardware
