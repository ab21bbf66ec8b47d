// ws-choose-organisation: each kernel's organisation from the cost model, written as
// ws.organisation (the options ws-hopper builds it with) and explained in a remark that gives the
// numbers compared. Inputs are kernels written the ordinary way; the decision follows what the
// kernel is, never its name.

// A GEMM with a bias + ReLU epilogue (128-row tiles, two consumer warp groups): persistent, a
// ping-pong team (each group does half the epilogue, one half under the other's MMAs), tiles in
// L2 bands (A depends on the tile's x alone, B on its y alone). The team's turns cost it at long
// K (a GEMM's groups have no register work to run while they wait: its loss at 256 iterations);
// without it the epilogue is not hidden (the loss at 4): the team's worst loss is the least.
// Two CTAs per SM would leave a thread of its three warp groups 80 registers, below what the
// consumer's accumulator and scalars take.
// RUN: ws-opt %S/../Inputs/kernels/organisation/gemm_bias_relu.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=EPI
// EPI: gemm_bias_relu.mlir:4:1: remark: ws-choose-organisation: persistent, a ping-pong team of 2 groups, depth 4, mma-depth 1, tiles in bands of 8, 1 CTA per SM: per iteration tc 512, tma 1024, softmax/regs 0
// EPI-SAME: one tile per CTA {{.*}}k (worst loss {{[1-9][0-9.]*}} %); persistent {{[0-9./k]+}} (worst loss 5.8 %); one tile per CTA + ping-pong team {{.*}}; persistent + ping-pong team {{[0-9./k]+}} (worst loss 3.8 %)
// EPI-SAME: not 2 CTAs per SM: the consumer needs at least 92 registers per thread (ws-register-budget), above the 80 a thread gets at 2 CTAs per SM
// EPI: func.func @gemm_bias_relu
// EPI-SAME: ws.organisation = {persistent = true, cooperative = 2 : i32, pingpong = true, depth = 4 : i32, "mma-depth" = 1 : i32, "tile-group" = 8 : i32, "ctas-per-sm" = 1 : i32}

// The same GEMM in a launch of 64 tiles (fewer than the SMs): nothing to overlap across tiles,
// so one tile per CTA; a tile's epilogue is then paid once per SM, and the team's turns over a
// long K loop cost more than its half of the epilogue saves: one consumer.
// RUN: ws-opt %S/../Inputs/kernels/organisation/gemm_bias_relu.mlir -p 'ws-choose-organisation{tiles=64}' 2>&1 | filecheck %s --check-prefix=TINY
// TINY: remark: ws-choose-organisation: one tile per CTA, depth 4,
// TINY-SAME: 64 tiles:
// TINY: ws.organisation = {persistent = false, cooperative = 1 : i32, pingpong = false, depth = 4 : i32, "mma-depth" = 1 : i32, "tile-group" = -1 : i32

// A GEMM whose K loop runs a constant two iterations: the trip count is used as it is.
// RUN: ws-opt %S/../Inputs/kernels/organisation/small_k_gemm.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=SMALLK
// SMALLK: remark: ws-choose-organisation: persistent, a ping-pong team of 2 groups,
// SMALLK-SAME: predicted cycles per SM at 2 K-loop iterations, 2112 tiles (launch assumed large)

// GEMMs whose epilogue is a TMA store of the converted accumulator (little to hide): persistent,
// one consumer of two warp groups in lockstep, no team: a batched GEMM (3-D grid, 128x256x64
// tiles) and an fp8 GEMM with per-tensor scales (128x256x128). The team's turns cost it more
// at long K than its half of the epilogue saves at short K.
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/batched_tma_gemm.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=BATCHED
// BATCHED: remark: ws-choose-organisation: persistent, depth 3, mma-depth 1, tiles in bands of 8, 1 CTA per SM: per iteration tc 1024, tma 1536,
// BATCHED-SAME: persistent {{[0-9./k]+}} (worst loss 3.4 %); one tile per CTA + ping-pong team {{.*}}; persistent + ping-pong team {{[0-9./k]+}} (worst loss 5.2 %)
// BATCHED: ws.organisation = {persistent = true, cooperative = 1 : i32, pingpong = false, depth = 3 : i32
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/fp8_scaled_gemm.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=FP8
// FP8: remark: ws-choose-organisation: persistent, depth 3, mma-depth 1, tiles in bands of 8, 1 CTA per SM: per iteration tc 1024, tma 1536,
// FP8: ws.organisation = {persistent = true, cooperative = 1 : i32, pingpong = false, depth = 3 : i32

// The same 128x256x64 GEMM with a bounds-masked pointer store (examples/kernels/gemm.mlir): its
// epilogue (masks, addresses) is larger, and the team's half of it under the partner's MMAs pays
// for the turns. (H200, same file: the team is the best variant at K 16k.)
// RUN: ws-opt %S/../../examples/kernels/gemm.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=PTRSTORE
// PTRSTORE: remark: ws-choose-organisation: persistent, a ping-pong team of 2 groups, depth 3, mma-depth 1, tiles in bands of 8, 1 CTA per SM: per iteration tc 1024, tma 1536, softmax/regs 0 (tc after it 0) cycles; epilogue 1671;

// A GEMM with a bias + GELU (tanh) epilogue on one consumer warp group (128x128 f32 accumulator:
// 128 registers per thread): the tanh is SFU work, so the epilogue is long and a team (two groups
// of 64 rows) pays. Two CTAs per SM would give a thread 128 registers, fewer than the consumer
// needs: ptxas spills it and serializes its wgmmas, so the model does not consider it.
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/bias_gelu_gemm.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=GELU
// GELU: remark: ws-choose-organisation: persistent, a ping-pong team of 2 groups, depth 4, mma-depth 1, tiles in bands of 8, 1 CTA per SM:
// GELU-SAME: not 2 CTAs per SM: the consumer needs at least 156 registers per thread (ws-register-budget), above the 128 a thread gets at 2 CTAs per SM
// GELU: ws.organisation = {persistent = true, cooperative = 2 : i32, pingpong = true,

// 64-row tiles cannot be split between two groups: two CTAs share the SM instead (one CTA's
// epilogue under the other's loop); the rings get what half the shared memory holds.
// RUN: ws-opt %S/../Inputs/kernels/gemm_kinds/f32out_gemm.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=ROWS64
// ROWS64: remark: ws-choose-organisation: persistent, depth 3, mma-depth 1, tiles in bands of 8, 2 CTAs per SM:
// ROWS64-SAME: no team: 64-row tile of 1 warp group
// ROWS64: ws.organisation = {persistent = true, cooperative = 1 : i32, pingpong = false, depth = 3 : i32, "mma-depth" = 1 : i32, "tile-group" = 8 : i32, "ctas-per-sm" = 2 : i32}

// Attention (a softmax between QK^T and P.V): the softmax's SFU work goes under the partner
// group's MMAs in a ping-pong team; K and V depend on the tile's y alone: serpentine order. Head
// dimension 64 halves the MMAs beside the same softmax: the team no longer pays.
// RUN: ws-opt %S/../Inputs/kernels/causal_attention.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=ATTN
// ATTN: remark: ws-choose-organisation: persistent, a ping-pong team of 2 groups, depth 2, mma-depth 1, tiles in serpentine order, 1 CTA per SM: per iteration tc 2048, tma 2048, softmax/regs {{[0-9]+}} (tc after it 1024)
// ATTN: ws.organisation = {persistent = true, cooperative = 2 : i32, pingpong = true, depth = 2 : i32, "mma-depth" = 1 : i32, "tile-group" = 0 : i32
// RUN: ws-opt %S/../../examples/kernels/flash_attention_d64.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=D64
// D64: remark: ws-choose-organisation: persistent, depth {{[0-9]}}, mma-depth 1, tiles in serpentine order, 1 CTA per SM: per iteration tc 1024

// After ws-schedule (Twill's joint model), the warps are the schedule's: its ping-pong team on
// attention, its lockstep pair on the GEMM (no team); the model decides persistence and the rest.
// RUN: ws-opt %S/../Inputs/kernels/scheduled/flash_attention.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=SCHED-PP
// SCHED-PP: remark: ws-choose-organisation: persistent, a ping-pong team of 2 groups,
// SCHED-PP-SAME: warps as ws-schedule planned them (a team of 2, ping-pong)
// RUN: ws-opt %S/../Inputs/kernels/scheduled/gemm.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=SCHED-LOCK
// SCHED-LOCK: remark: ws-choose-organisation: persistent, depth 3, mma-depth 1, tiles in bands of 8, 1 CTA per SM:
// SCHED-LOCK-SAME: warps as ws-schedule planned them (a team of 2, lockstep)

// No tensor-core loop: nothing to organise.
// RUN: ws-opt %S/../Inputs/kernels/no_loop.mlir -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=NOLOOP
// NOLOOP: remark: ws-choose-organisation: one tile per CTA, depth 4, mma-depth 1, 1 CTA per SM: no tensor-core loop

// Under ws-hopper: options left at auto are the model's, chosen around the options given (the
// remark says what the model alone would choose), and ws.organisation says what was built.
// RUN: ws-opt %S/../Inputs/kernels/organisation/small_k_gemm.mlir -p 'ws-hopper{persistent=false}' 2>&1 | filecheck %s --check-prefix=GIVEN
// GIVEN: remark: ws-choose-organisation: one tile per CTA, a ping-pong team of 2 groups, {{.*}}; around persistent=false as given (alone the model would choose persistent=true)
// GIVEN: func.func @small_k_gemm
// GIVEN-SAME: ws.organisation = {depth = 4 : i32, "mma-depth" = 1 : i32, cooperative = 2 : i32, pingpong = true, persistent = false, "tile-group" = -1 : i32, "ctas-per-sm" = 1 : i32}
// GIVEN-NOT: ws.persistent
// RUN: ws-opt %S/../Inputs/kernels/organisation/small_k_gemm.mlir -p 'ws-hopper{cooperative=1 depth=3}' 2>&1 | filecheck %s --check-prefix=GIVEN2
// GIVEN2: ws.organisation = {depth = 3 : i32, "mma-depth" = 1 : i32, cooperative = 1 : i32, pingpong = false, persistent = true, "tile-group" = 8 : i32, "ctas-per-sm" = 1 : i32}
// GIVEN2-SAME: ws.persistent = {programs = 132 : i32}
// Two CTAs per SM given: no ping-pong team beside them (two teams' accumulators would not fit the
// registers of two CTAs), the rest chosen for two CTAs.
// RUN: ws-opt %S/../Inputs/kernels/organisation/gemm_bias_relu.mlir -p 'ws-hopper{ctas-per-sm=2}' 2>&1 | filecheck %s --check-prefix=CTAS
// CTAS: remark: ws-choose-organisation: persistent, depth 2, mma-depth 1, tiles in bands of 8, 2 CTAs per SM: {{.*}}; around ctas-per-sm=2 as given (alone the model would choose ctas-per-sm=1)
// CTAS: ws.organisation = {depth = 2 : i32, "mma-depth" = 1 : i32, cooperative = 1 : i32, pingpong = false, persistent = true, "tile-group" = 8 : i32, "ctas-per-sm" = 2 : i32}
// Every option given: the model's decision is not used, and what is built is what was asked.
// RUN: ws-opt %S/../Inputs/kernels/organisation/small_k_gemm.mlir -p 'ws-hopper{persistent=true cooperative=1 pingpong=false depth=2 mma-depth=0 tile-group=0 ctas-per-sm=2}' 2>&1 | filecheck %s --check-prefix=ALL
// ALL: ws.organisation = {depth = 2 : i32, "mma-depth" = 0 : i32, cooperative = 1 : i32, pingpong = false, persistent = true, "tile-group" = 0 : i32, "ctas-per-sm" = 2 : i32}
// ALL-SAME: ws.ctas_per_sm = 2 : i32, ws.persistent = {programs = 264 : i32}
// RUN: ws-opt %S/../Inputs/kernels/organisation/small_k_gemm.mlir -p 'ws-hopper{auto=false}' 2>&1 | filecheck %s --check-prefix=FIXED
// FIXED-NOT: ws-choose-organisation
// FIXED-NOT: ws.organisation
// FIXED-NOT: ws.persistent
// FIXED: nvgpu.wg.dispatch

// A decision already on the kernel is kept (and built by ws-hopper).
// RUN: ws-opt %s -p ws-choose-organisation 2>&1 | filecheck %s --check-prefix=KEEP
// RUN: ws-opt %s -p ws-hopper 2>&1 | filecheck %s --check-prefix=KEEP-BUILT
// KEEP-NOT: remark
// KEEP: ws.organisation = {persistent = false, cooperative = 1 : i32, pingpong = false, depth = 2 : i32, "mma-depth" = 0 : i32, "tile-group" = -1 : i32, "ctas-per-sm" = 1 : i32}
// KEEP-BUILT-NOT: ws.persistent
// KEEP-BUILT: ws.organisation = {depth = 2 : i32, "mma-depth" = 0 : i32, cooperative = 1 : i32, pingpong = false, persistent = false
// KEEP-BUILT: nvgpu.wg.dispatch

// Bad options and a malformed decision are the user's errors.
// RUN: not ws-opt %s -p 'ws-choose-organisation{tiles=-1}' 2>&1 | filecheck %s --check-prefix=BAD-TILES
// BAD-TILES: error: ws-choose-organisation: tiles (output tiles of the launch; 0: a large launch) must be >= 0, got -1
// RUN: not ws-opt %s -p 'ws-choose-organisation{arch=h300}' 2>&1 | filecheck %s --check-prefix=BAD-ARCH
// BAD-ARCH: error: ws-choose-organisation: unknown machine 'h300'
// RUN: not ws-opt %S/Inputs/bad-organisation.mlir -p ws-hopper 2>&1 | filecheck %s --check-prefix=BAD-ATTR
// BAD-ATTR: bad-organisation.mlir:3:1: error: {{.*}}ws.organisation must be a dictionary of ws-hopper options

func.func @k(%a_desc: !tile.desc<tensor<64x64xf16>>, %b_desc: !tile.desc<tensor<64x64xf16>>,
             %c_desc: !tile.desc<tensor<64x64xf16>>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32,
                ws.organisation = {persistent = false, cooperative = 1 : i32, pingpong = false, depth = 2 : i32,
                                   "mma-depth" = 0 : i32, "tile-group" = -1 : i32, "ctas-per-sm" = 1 : i32}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0 : i32
  %om = arith.muli %pid, %c64 : i32
  %kt = arith.ceildivsi %K, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero, %ok = %c0) -> (tensor<64x64xf32>, i32) : i32 {
    %a = tile.desc_load %a_desc[%om, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %b = tile.desc_load %b_desc[%c0, %ok] : !tile.desc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %bt = tile.trans %b [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %a, %bt, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %ok2 = arith.addi %ok, %c64 : i32
    scf.yield %d, %ok2 : tensor<64x64xf32>, i32
  }
  %out = arith.truncf %r#0 : tensor<64x64xf32> to tensor<64x64xf16>
  tile.desc_store %c_desc[%om, %c0], %out : !tile.desc<tensor<64x64xf16>>
  func.return
}
