// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// (Attention takes about 4 s of CPU time: an explicit time limit keeps the test
// deterministic on a loaded machine; the default, 10 s, is for compiles.)
// RUN: ws-opt %shared/kernels/attention.mlir -p 'ws-sched''ule{arch=h100 solver=cpsat time-limit=120 pingpong=false}' -o %t
// RUN: filecheck %s --input-file %t --check-prefix=ATTR
// RUN: ws-opt %t --print-op-generic | ws-opt | filecheck %s --check-prefix=ATTR
// RUN: ws-opt %t -p 'ws-partition,ws-distribute{depth=2}' | filecheck %s --check-prefix=DIST
// RUN: ws-opt %t -p 'ws-specialize{depth=3 mma-depth=2}' | filecheck %s --check-prefix=SPEC
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

// ws-schedule writes Twill's optimum (II = 23, L = 40 on the h100 model, whose dots
// take their measured 128-cycle latency on top of their tensor-core time) on the
// loop, and stage / order in the steady state / warp group on every scheduled
// op (TMA loads on the variable-latency group 2; QK^T on group 0, PV on group 1).
// Views (tile.trans, expand_dims, broadcast) and scalars get none.
// ATTR: scf.for %j = %c0 to %n_tiles step %c1 iter_args
// ATTR-NEXT: %k = tile.desc_load {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 2 : i32}
// ATTR-NEXT: %kt = tile.trans %k [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>{{$}}
// ATTR-NEXT: %qk = tile.dot {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32}
// ATTR: %p = math.exp2 %qk_c {ws.stage = {{[0-9]+}} : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 0 : i32} : tensor<128x128xf32>
// ATTR: %alpha_e = tile.expand_dims %alpha, 1 : tensor<128xf32> -> tensor<128x1xf32>{{$}}
// ATTR: %v = tile.desc_load {{.*}} {ws.stage = 0 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 2 : i32}
// ATTR: %acc_new = tile.dot %p16, %v, %acc_s {{.*}} {ws.stage = 1 : i32, ws.order = {{[0-9]+}} : i32, ws.warp = 1 : i32}
// ATTR-NEXT: %kv_next = arith.addi %kv_row, %Bn : i32
// ATTR-NEXT: scf.yield
// ATTR-NEXT: } {ws.schedule = {II = 23 : i32, L = 40 : i32, warps = 2 : i32, solver = "cpsat", vl_warp = 2 : i32}}

// Honoured: one consumer partition per warp group, each with its own loop copy;
// every tile crossing partitions travels through its own aref -- the TMA loads,
// and computed tiles too: the P tile (p16) from the softmax group to the PV group.
// DIST: %aref_k = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// DIST: %aref_q = aref.create : !aref.ring<tensor<128x128xf16>, depth = 1>
// DIST: %aref_p16 = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// DIST: %aref_v = aref.create : !aref.ring<tensor<128x128xf16>, depth = 2>
// DIST: warp_group.partition 0 producer warps 4 regs 40 {
// DIST-NOT: tile.dot
// DIST: aref.put %aref_k[%j], %k
// DIST: aref.put %aref_v[%j], %v
// DIST: warp_group.partition 1 consumer_w0 warps 4 regs 232 {
// DIST: %[[Q:.*]] = aref.get %aref_q
// DIST: scf.for %[[J:[a-z_0-9]+]] = {{.*}} : i32 {
// DIST-NEXT: %[[K:.*]] = aref.get %aref_k[%[[J]]]
// DIST-NEXT: %kt = tile.trans %[[K]] [1, 0]
// DIST-NEXT: %qk = tile.dot %[[Q]], %kt, %zero_qk {{.*}} ws.warp = 0 : i32}
// DIST-NEXT: aref.consumed %aref_k[%[[J]]]
// DIST-NOT: ws.warp = 1
// DIST: %p16 = arith.truncf %p {{.*}}ws.warp = 0 : i32}
// DIST-NEXT: aref.put %aref_p16[%[[J]]], %p16
// DIST: } {ws.schedule = {II = 23 : i32
// DIST-NEXT: aref.consumed %aref_q
// DIST: warp_group.partition 2 consumer_w1 warps 4 regs 232 {
// DIST-NOT: ws.warp = 0
// DIST: scf.for %[[J2:.*]] = %{{.*}} iter_args({{.*}}%acc = %acc0) -> ({{.*}}tensor<128x128xf32>) : i32 {
// DIST: %[[V:.*]] = aref.get %aref_v[%[[J2]]]
// DIST-NEXT: %[[P:.*]] = aref.get %aref_p16[%[[J2]]]
// DIST-NEXT: %acc_new = tile.dot %[[P]], %[[V]], %acc_s {{.*}} ws.warp = 1 : i32}
// DIST-NEXT: aref.consumed %aref_p16[%[[J2]]]
// DIST-NEXT: aref.consumed %aref_v[%[[J2]]]
// DIST: tile.desc_store %o_desc

// ws-specialize (partition, distribute, pipeline-mma) compiles the schedule:
// each group's dots are issued asynchronously.
// SPEC: warp_group.partition 1 consumer_w0 warps 4 regs 232 {
// SPEC: %qk = mma.async_dot
// SPEC: mma.wait %qk {pending = 0}
// SPEC: warp_group.partition 2 consumer_w1 warps 4 regs 232 {
// SPEC: %acc_new = mma.async_dot
// SPEC: mma.wait %acc_new {pending = 0}

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
