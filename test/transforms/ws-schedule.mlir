// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// (Attention takes about 4 s of CPU time: an explicit time limit keeps the test
// deterministic on a loaded machine; the default, 10 s, is for compiles.)
// RUN: ws-opt %S/../Inputs/kernels/dual_dot.mlir -p 'ws-sched''ule{arch=h100},ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=ONE
// RUN: ws-opt %S/../Inputs/kernels/no_loop.mlir -p 'ws-sched''ule' 2>&1 | filecheck %s --check-prefix=NOLOOP
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-sched''ule{arch=h100}' | filecheck %s --check-prefix=GEMM
// RUN: ws-opt %shared/kernels/gemm.mlir -p 'ws-sched''ule{arch=h100},ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=GEMMDIST
// RUN: sed 's/tile.num_warps = 8/tile.num_warps = 4/' %shared/kernels/gemm.mlir | ws-opt -p 'ws-sched''ule{arch=h100},ws-partition' 2>&1 | filecheck %s --check-prefix=NOSCHED
// RUN: not ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{arch=a100}' 2>&1 | filecheck %s --check-prefix=BADARCH
// RUN: not ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{solver=yices}' 2>&1 | filecheck %s --check-prefix=BADSOLVER
// RUN: not ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{time-limit=-1}' 2>&1 | filecheck %s --check-prefix=BADLIMIT
// RUN: not ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{normalize=0}' 2>&1 | filecheck %s --check-prefix=BADNORM
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{time-limit=0.05},ws-specialize' 2>&1 | filecheck %s --check-prefix=FALLBACK
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{normalize=100000},ws-specialize' 2>&1 | filecheck %s --check-prefix=TOOBIG
// RUN: sed 's/tile.num_warps = 8 : i32/tile.num_warps = 2.5 : f32/' %shared/kernels/attention.mlir > %t.warps.mlir
// RUN: not ws-opt %t.warps.mlir -p 'ws-sched''ule' 2>&1 | filecheck %s --check-prefix=WARPS

// One compute warp group (tile.num_warps = 4): the default partitioning (the
// scheduled ops keep their attributes).
// ONE: %aref_a_wg_wu = aref.create
// ONE: warp_group.partition 1 consumer warps 4 regs 256 {
// ONE: %g2 = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}

// NOLOOP: remark: ws-schedule: @scale has no loop with a TMA load; not scheduled
// gemm's 128x256 f32 accumulator needs 256 registers per thread of one warp
// group (h100 budget: 240 for two compute groups): the two groups are one
// team (M split, 128 registers each), so one scheduled warp. Both teams reach the
// same II; with nothing but MMAs in the loop there is nothing for a ping-pong
// partner to overlap, so the tie goes to the lockstep team (no turn barriers).
// GEMM: %acc2 = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}
// GEMM: } {ws.schedule = {II = {{[0-9]+}} : i32, L = {{[0-9]+}} : i32, warps = 1 : i32, solver = "cpsat", cooperative = 2 : i32, vl_warp = 1 : i32}}

// The schedule survives ws-partition and ws-distribute on the default
// partitioning too: the ops of every loop copy keep ws.stage / ws.order /
// ws.warp, and every loop copy keeps ws.schedule.
// GEMMDIST: warp_group.partition 0 producer
// GEMMDIST: %a = tile.desc_load {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 1 : i32}
// GEMMDIST: } {ws.schedule = {II = {{[0-9]+}} : i32, {{.*}}cooperative = 2 : i32
// GEMMDIST: warp_group.partition 1 consumer warps 8
// GEMMDIST: %acc2 = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}
// GEMMDIST: } {ws.schedule = {II = {{[0-9]+}} : i32, {{.*}}cooperative = 2 : i32

// With one compute group there is nobody to share the accumulator with.
// NOSCHED: remark: ws-schedule: @matmul not scheduled: no schedule at any II: op 'acc2' holds 256 registers per thread while live, above the register limit of 255
// NOSCHED: ws.partition = array<i32: 1>

// BADARCH: error: ws-schedule: unknown arch 'a100'
// BADSOLVER: error: ws-schedule: unknown solver 'yices'
// BADLIMIT: error: ws-schedule: time-limit must be a number of seconds from 0 to 86400, got -1
// BADNORM: error: ws-schedule: normalize must be from 1 to 100000, got 0

// Out of time (here a limit no search can meet: the §5.2 normalization runs
// out first, and its coarser fallback scaling makes the model too large): the
// kernel is left unscheduled with a remark at its loop, and the heuristic
// pipeline compiles it (one consumer partition for the softmax and both dots).
// FALLBACK: attention.mlir:27:5: remark: ws-schedule: @attention{{.*}}; falling back to the heuristic pipeline
// FALLBACK-NOT: ws.stage
// FALLBACK: warp_group.partition 1 consumer warps

// Without normalization to a small scale the model at the least II would be
// too large to build: refused at once (no memory blow-up), with the same fallback.
// TOOBIG: attention.mlir:27:5: remark: ws-schedule: @attention not scheduled: at II = {{[0-9]+}} the scheduling model would have about {{.*}} terms, above the limit of {{[0-9]+}}: {{.*}}; falling back to the heuristic pipeline
// TOOBIG: warp_group.partition 1 consumer warps

// A tile.num_warps that is not a positive integer is bad input (located, exit 1).
// WARPS: .warps.mlir:4:3: error: 'func.func' tile.num_warps must be an integer number of warps {{.*}}, got 2.500000e+00 : f32
