// ws-schedule's partner-latency: how a ping-pong member's elementwise ops are priced. `false`: at
// their unit occupancy, as if the member ran alone; on 176-key attention tiles that model fits a
// member's whole chain QK^T -> softmax -> P·V in one II and keeps everything in QK^T's stage,
// the chain hidden by the partner's MMAs alone. `true`: as measured beside the partner
// (machines/h100.json chain_latency.with_partner); the chain no longer fits and P·V with O's
// rescale goes one stage behind (FA3's pipeline: P·V of iteration j-1 issued right after QK^T of
// j). `auto` (the default) takes the partner's prices exactly when the occupancy schedule is
// one stage and the partner's schedule fits a member's registers, and says so in ws.schedule
// (128-key attention keeps its pipelined occupancy schedule: test/schedule/test_partner_latency.py).
// (ws-sched''ule: the split keeps lit from substituting the tool path into the pass name.)
// RUN: ws-opt %S/../Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-sched''ule{arch=h100 time-limit=120}' | filecheck %s --check-prefix=PARTNER
// RUN: ws-opt %S/../Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-sched''ule{arch=h100 partner-latency=false time-limit=120}' | filecheck %s --check-prefix=OCCUPANCY
// RUN: not ws-opt %S/../Inputs/kernels/flash_attention_bf16_bn176.mlir -p 'ws-sched''ule{partner-latency=sometimes}' 2>&1 | filecheck %s --check-prefix=BAD

// PARTNER: %qk_raw = tile.dot {{.*}} {ws.stage = 0 : i32
// PARTNER: %p = math.exp2 %qk_c {ws.stage = 0 : i32
// PARTNER: %acc_s = arith.mulf %acc, %alpha_b {ws.stage = 1 : i32
// PARTNER: %p16 = arith.truncf %p {ws.stage = 0 : i32
// PARTNER: %acc_new = tile.dot %p16, %v, %acc_s {{.*}} {ws.stage = 1 : i32
// PARTNER: ws.schedule = {{{.*}}cooperative = 2 : i32, pingpong = true, partner_latency = true

// OCCUPANCY: %qk_raw = tile.dot {{.*}} {ws.stage = 0 : i32
// OCCUPANCY: %acc_new = tile.dot %p16, %v, %acc_s {{.*}} {ws.stage = 0 : i32
// OCCUPANCY: ws.schedule = {{{.*}}cooperative = 2 : i32, pingpong = true
// OCCUPANCY-NOT: partner_latency

// BAD: error: ws-schedule: partner-latency must be true, false or auto, got 'sometimes'
